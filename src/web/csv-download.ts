import { pipeline, Readable, Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import { now } from '../clock.ts';
import { toErrorResponse } from '../errors/error-response.ts';
import { fieldError } from '../errors/field-error.ts';
import { noteRequest } from '../logger.ts';
import { createRequestContext } from '../trpc/context.ts';
import type { Meta } from '../trpc/init.ts';
import { admitCall } from '../trpc/procedures.ts';
import { jsonAnswer } from './answers.ts';
import { queryInput } from './query-input.ts';

/**
 * CSV downloads. The REST bridge answers every procedure with one JSON
 * body, and a procedure's output is a value, not a stream, so a download is
 * a route of its own, taken before the bridge (src/http/app.ts). It admits calls
 * as the procedures do (admitCall: credential, rate limit and its headers,
 * permission), checks its query with a zod schema (400s naming the field),
 * answers errors with the same bodies, and streams rows from a cursor
 * through csv-stringify with backpressure (the server reads the body as the
 * socket drains), so memory stays flat however many rows there are.
 */
export interface CsvDownload<Row> {
  /** Names the attachment: `<name>-<date>.csv` (`.jsonl`). */
  name: string;
  /** The header row; with object rows, also the keys read from each row. */
  columns: string[];
  /** A cursor's rows; `return()` closes it. */
  rows: AsyncGenerator<Row>;
  /** `jsonl`: JSON Lines (one row a line, as JSON, no header) instead of CSV. */
  format?: 'csv' | 'jsonl';
}

const fileForms = {
  csv: { type: 'text/csv; charset=utf-8', extension: 'csv' },
  jsonl: { type: 'application/jsonl; charset=utf-8', extension: 'jsonl' },
};

/** Each row as one line of JSON. */
const jsonLines = () =>
  new Transform({
    writableObjectMode: true,
    transform(row: unknown, _encoding, done) {
      done(null, `${JSON.stringify(row)}\n`);
    },
  });

export interface CsvRouteOptions {
  rateLimitPerMinute: number;
  onFault: (error: unknown) => void;
}

/** The query checked against `schema`, parameters typed (and reshaped, as a procedure's restInput) as the REST bridge does. */
export function checkedQuery<T extends z.ZodType>(
  schema: T,
  request: Request,
  reshape: (raw: Record<string, unknown>) => unknown = (raw) => raw,
): z.infer<T> {
  const url = new URL(request.url);
  const parsed = schema.safeParse(reshape(queryInput(schema, url.searchParams)));
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

/**
 * A handler serving the download `open` prepares for each admitted call, or the JSON answer it gives instead (a
 * 202 while the file is not there yet), errors in the access's style.
 */
export function createCsvRoute<Row>(
  route: string,
  access: Pick<Meta, 'permission' | 'plan' | 'planError' | 'errorStyle'>,
  options: CsvRouteOptions,
  open: (principal: Principal, request: Request) => Promise<CsvDownload<Row> | { status: number; body: unknown }>,
) {
  return async function serveCsv(request: Request): Promise<Response> {
    noteRequest({ route });
    const ctx = createRequestContext(request.headers, options.rateLimitPerMinute);
    let rows: AsyncGenerator<Row> | undefined;
    try {
      const principal = await admitCall(ctx, access, false);
      const download = await open(principal, request);
      if (!('rows' in download)) return jsonAnswer(download.status, download.body, ctx.responseHeaders);
      rows = download.rows;
      // The first batch is read before the head is written, so a database that fails at once still gets a JSON 500.
      const first = await rows.next();
      const form = fileForms[download.format ?? 'csv'];
      const encode =
        download.format === 'jsonl'
          ? jsonLines()
          : stringify({ header: true, columns: download.columns, cast: { string: neutraliseFormula } });
      // A failure anywhere destroys the whole pipeline, its last stream included, which cuts the response short.
      const body = pipeline(Readable.from(resumed(first, rows, options.onFault)), encode, coalesced(), () => {});
      return new Response(Readable.toWeb(body) as ReadableStream, {
        headers: {
          ...ctx.responseHeaders,
          'Content-Type': form.type,
          'Content-Disposition': `attachment; filename="${download.name}-${now().toISOString().slice(0, 10)}.${form.extension}"`,
        },
      });
    } catch (error) {
      await rows?.return(undefined);
      const { status, body, headers } = toErrorResponse(error, access.errorStyle ?? 'standard', 'read');
      if (status >= 500) options.onFault(error);
      return jsonAnswer(status, body, { ...ctx.responseHeaders, ...headers });
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

/**
 * The rows again from the start, the first one having been read already. A failure mid-stream is reported here:
 * the server then cuts the response short, which the client sees as an incomplete transfer. However the stream
 * ends (read to the end, failed, or the client gone and the stream destroyed), the cursor is closed.
 */
async function* resumed<Row>(first: IteratorResult<Row>, rest: AsyncGenerator<Row>, onFault: (error: unknown) => void) {
  try {
    if (first.done) return;
    yield first.value;
    yield* rest;
  } catch (error) {
    onFault(error);
    throw error;
  } finally {
    await rest.return(undefined);
  }
}
