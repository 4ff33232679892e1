import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { normalizePath } from 'trpc-to-openapi';
import { listSuppressionsInput, suppressionCsvColumns, type SuppressionOut } from '../../../schema/outreach/suppressions.ts';
import { now } from '../../clock.ts';
import { toErrorResponse } from '../../errors/error-response.ts';
import { fieldError } from '../../errors/field-error.ts';
import { queryInput } from '../../http/query-input.ts';
import { sendJson } from '../../http/send-json.ts';
import { noteRequest } from '../../logger.ts';
import { createRequestContext } from '../../trpc/context.ts';
import { admitCall } from '../../trpc/procedures.ts';
import { listSuppressionsAccess } from './list-suppressions.ts';
import { suppressionRows } from './suppressions.service.ts';

/**
 * GET /api/outreach/suppressions?format=csv: the whole do-not-contact list
 * as a CSV download. The REST bridge answers every procedure with one JSON
 * body, and a procedure's output is a value, not a stream, so this one
 * download is a route of its own, taken before the bridge (server.ts). It is
 * still the list operation: the same path and parameters (checked by the
 * list's input schema, 400s naming the field), the same admission
 * (admitCall with the list's permission: credential, rate limit and its
 * headers, permission), the same error bodies, and /openapi.json lists
 * `text/csv` as the operation's other 200 form (restMediaTypes).
 */
export const suppressionsPath = '/api/outreach/suppressions';

/** The last `format` wins, as the bridge reads repeated query parameters. */
export function isSuppressionsCsvRequest(req: IncomingMessage): boolean {
  if (req.method !== 'GET') return false;
  const url = new URL(req.url ?? '/', 'http://localhost');
  return normalizePath(url.pathname) === suppressionsPath && url.searchParams.getAll('format').at(-1) === 'csv';
}

function checkedQuery(url: URL): string | undefined {
  const parsed = listSuppressionsInput.safeParse(queryInput(listSuppressionsInput, url.searchParams));
  if (!parsed.success) {
    const [first, ...rest] = parsed.error.issues.map((issue) => ({ field: issue.path.map(String).join('.') || 'query', problem: issue.message }));
    throw fieldError(first!, ...rest);
  }
  return parsed.data.q || undefined;
}

/** A stream client that went away is not a fault of ours. */
const isClientGone = (error: unknown) => (error as { code?: string } | null)?.code === 'ERR_STREAM_PREMATURE_CLOSE';

export function createSuppressionsCsvRoute(options: { rateLimitPerMinute: number; onFault: (error: unknown) => void }) {
  return async function serveSuppressionsCsv(req: IncomingMessage, res: ServerResponse) {
    noteRequest({ route: suppressionsPath });
    const ctx = createRequestContext(req.headers, options.rateLimitPerMinute);
    let rows: AsyncGenerator<SuppressionOut> | undefined;
    try {
      const principal = await admitCall(ctx, listSuppressionsAccess);
      const q = checkedQuery(new URL(req.url ?? '/', 'http://localhost'));
      // The first batch is read before the head is written, so a database that fails at once still gets a JSON 500.
      rows = suppressionRows(principal.workspaceId, q);
      const first = await rows.next();
      res.writeHead(200, {
        ...ctx.responseHeaders,
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="suppressions-${now().toISOString().slice(0, 10)}.csv"`,
      });
      await pipeline(Readable.from(resumed(first, rows)), stringify({ header: true, columns: suppressionCsvColumns }), res);
    } catch (error) {
      if (res.headersSent) {
        // Mid-stream all that is left is to cut the response short, which the client sees as an incomplete transfer.
        if (!isClientGone(error)) options.onFault(error);
        res.destroy();
        return;
      }
      const { status, body } = toErrorResponse(error);
      if (status >= 500) options.onFault(error);
      sendJson(res, status, body, ctx.responseHeaders);
    } finally {
      // Closes the cursor however the stream ended (a no-op once the rows were all read).
      await rows?.return(undefined);
    }
  };
}

/** The rows again from the start, the first one having been read already. */
async function* resumed(first: IteratorResult<SuppressionOut>, rest: AsyncGenerator<SuppressionOut>): AsyncGenerator<SuppressionOut> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}
