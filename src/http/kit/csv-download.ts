import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { z } from 'zod';
import type { Principal } from '../../auth/principal.ts';
import { now } from '../../clock.ts';
import { toErrorResponse } from '../../errors/error-response.ts';
import { fieldError } from '../../errors/field-error.ts';
import { noteRequest } from '../../logger.ts';
import { createRequestContext } from '../../trpc/context.ts';
import type { Meta } from '../../trpc/init.ts';
import { admitCall } from '../../trpc/procedures.ts';
import { queryInput } from './query-input.ts';
import { sendJson } from './send-json.ts';

/**
 * CSV downloads. The REST bridge answers every procedure with one JSON
 * body, and a procedure's output is a value, not a stream, so a download is
 * a route of its own, taken before the bridge (server.ts). It admits calls
 * as the procedures do (admitCall: credential, rate limit and its headers,
 * permission), checks its query with a zod schema (400s naming the field),
 * answers errors with the same bodies, and streams rows from a cursor
 * through csv-stringify with backpressure, so memory stays flat however
 * many rows there are.
 */
export interface CsvDownload<Row> {
  /** Names the attachment: `<name>-<date>.csv`. */
  name: string;
  /** The header row; with object rows, also the keys read from each row. */
  columns: string[];
  /** A cursor's rows; `return()` closes it. */
  rows: AsyncGenerator<Row>;
}

export interface CsvRouteOptions {
  rateLimitPerMinute: number;
  onFault: (error: unknown) => void;
}

/** The query checked against `schema`, parameters typed as the REST bridge types them. */
export function checkedQuery<T extends z.ZodType>(schema: T, req: IncomingMessage): z.infer<T> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const parsed = schema.safeParse(queryInput(schema, url.searchParams));
  if (!parsed.success) {
    const [first, ...rest] = parsed.error.issues.map((issue) => ({
      field: issue.path.map(String).join('.') || 'query',
      problem: issue.message,
    }));
    throw fieldError(first!, ...rest);
  }
  return parsed.data;
}

/**
 * Spreadsheet apps run a cell that starts with `=`, `+`, `-` or `@` (or a
 * tab or carriage return, which some strip first) as a formula: such text
 * is prefixed with a single quote so it shows as the text it is.
 */
export const neutraliseFormula = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** A stream client that went away is not a fault of ours. */
const isClientGone = (error: unknown) => (error as { code?: string } | null)?.code === 'ERR_STREAM_PREMATURE_CLOSE';

/** A handler serving the download `open` prepares for each admitted call. */
export function createCsvRoute<Row>(
  route: string,
  access: Pick<Meta, 'permission' | 'plan' | 'planError'>,
  options: CsvRouteOptions,
  open: (principal: Principal, req: IncomingMessage) => Promise<CsvDownload<Row>>,
) {
  return async function serveCsv(req: IncomingMessage, res: ServerResponse) {
    noteRequest({ route });
    const ctx = createRequestContext(req.headers, options.rateLimitPerMinute);
    let rows: AsyncGenerator<Row> | undefined;
    try {
      const principal = await admitCall(ctx, access, false);
      const download = await open(principal, req);
      rows = download.rows;
      // The first batch is read before the head is written, so a database that fails at once still gets a JSON 500.
      const first = await rows.next();
      res.writeHead(200, {
        ...ctx.responseHeaders,
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="${download.name}-${now().toISOString().slice(0, 10)}.csv"`,
      });
      const csv = stringify({ header: true, columns: download.columns, cast: { string: neutraliseFormula } });
      await pipeline(Readable.from(resumed(first, rows)), csv, coalesced(), res);
    } catch (error) {
      if (res.headersSent) {
        // Mid-stream all that is left is to cut the response short, which the client sees as an incomplete transfer.
        if (!isClientGone(error)) options.onFault(error);
        res.destroy();
        return;
      }
      const { status, body, headers } = toErrorResponse(error, 'standard', 'read');
      if (status >= 500) options.onFault(error);
      sendJson(res, status, body, { ...ctx.responseHeaders, ...headers });
    } finally {
      // Closes the cursor however the stream ended (a no-op once the rows were all read).
      await rows?.return(undefined);
    }
  };
}

/** csv-stringify's output (a chunk a row) joined into chunks of about 64 KB: one socket write each, not one a row. */
function coalesced(size = 64 * 1024) {
  let chunks: Buffer[] = [];
  let length = 0;
  const flush = (stream: Transform) => {
    if (length) stream.push(Buffer.concat(chunks, length));
    chunks = [];
    length = 0;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= size) flush(this);
      done();
    },
    flush(done) {
      flush(this);
      done();
    },
  });
}

/** The rows again from the start, the first one having been read already. */
async function* resumed<Row>(first: IteratorResult<Row>, rest: AsyncGenerator<Row>): AsyncGenerator<Row> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}
