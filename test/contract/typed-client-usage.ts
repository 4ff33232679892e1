/**
 * A client as a customer would write it: openapi-fetch over the types
 * openapi-typescript generates from /openapi.json. CI type-checks it against
 * freshly generated types (typed-client-check.ts); typed-client.test.ts runs
 * it against the real server. Each annotation below is a claim the document
 * makes to client code.
 */
import createClient from 'openapi-fetch';
// eslint-disable-next-line @typescript-eslint/ban-ts-comment -- see below
// @ts-ignore -- (not @ts-expect-error: where the file exists there is no error to expect) generated (gitignored) by typed-client-check.ts, which checks this file against it; where it has not been generated, the project's own typecheck sees `any` here.
import type { components, paths } from '../../.tools/openapi-client/api.d.ts';

type ErrorCode = components['schemas']['Error']['code'];
type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
type Accepted = paths['/api/scrape/{scraperId}']['post']['responses'][202]['content']['application/json'];
type DataPending = paths['/api/{scraperId}/data/{runId}']['get']['responses'][202]['content']['application/json'];

/** The names a header map declares (not its `[name: string]: unknown` catch-all): an undeclared name is a type error. */
type Declared<Headers> = keyof { [Name in keyof Headers as string extends Name ? never : Name]: true };
/** A declared header's type, as the document types it. */
type Header<Headers, Name extends Declared<Headers>> = Exclude<Headers[Name & keyof Headers], undefined>;
type ListHeaders = paths['/api/leads']['get']['responses'][200]['headers'];
type ImportHeaders = paths['/api/leads']['post']['responses'][201]['headers'];

/** A response header read as its declared type: integers as numbers, enums as their values. */
function readHeader<T>(response: Response, name: string, parse: (raw: string) => T): T | undefined {
  const raw = response.headers.get(name);
  return raw === null ? undefined : parse(raw);
}

interface Options {
  baseUrl: string;
  apiKey: string;
  /** A scraper of the key's workspace, and the page to start a run of it on. */
  scraperId: string;
  startUrl: string;
  fetch?: (request: Request) => Promise<Response>;
}

export async function useTypedClient({ baseUrl, apiKey, scraperId, startUrl, fetch }: Options) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` }, ...(fetch && { fetch }) });

  // Import leads: 201 { created, duplicates, leads }; a full workspace is 403 lead_limit with used and limit.
  // With an Idempotency-Key, the same import sent again is answered from the first, marked Idempotent-Replayed.
  const importLeads = () =>
    api.POST('/api/leads', {
      params: { header: { 'Idempotency-Key': 'import-berlin-fintech' } },
      body: { name: 'Berlin fintech', leads: [{ company: 'Acme', full_name: 'Ada Byron', email: 'ada@acme.test', custom: { tier: 'A' } }] },
    });
  const imported = await importLeads();
  const retried = await importLeads();
  const replayed: Header<ImportHeaders, 'Idempotent-Replayed'> | undefined = readHeader(retried.response, 'Idempotent-Replayed', (raw) =>
    raw === 'true' ? raw : undefined,
  );
  const requestId: Header<ImportHeaders, 'X-Request-Id'> | undefined = readHeader(imported.response, 'X-Request-Id', String);
  let created: number | undefined;
  let cap: { used?: number; limit?: number } | undefined;
  if (imported.data) created = imported.data.created + imported.data.duplicates * 0;
  else if (imported.error.code === 'lead_limit') cap = { used: imported.error.used, limit: imported.error.limit };

  // List and search leads.
  const listed = await api.GET('/api/leads', { params: { query: { q: 'acme', status: 'new', limit: 10 } } });
  // The rate limit's state on every admitted call: integers.
  const rateLimit: { limit?: Header<ListHeaders, 'RateLimit-Limit'>; remaining?: Header<ListHeaders, 'RateLimit-Remaining'> } = {
    limit: readHeader(listed.response, 'RateLimit-Limit', Number),
    remaining: readHeader(listed.response, 'RateLimit-Remaining', Number),
  };
  const emails: Array<string | null> = listed.data?.leads.map(({ email }: { email: string | null }) => email) ?? [];
  const total: number | undefined = listed.data?.total;
  const listError: ErrorCode | undefined = listed.error?.code;

  // Start a scrape run: 202 { success, data: { runId, status, message }, metadata }, or 200 with options.wait.
  const started = await api.POST('/api/scrape/{scraperId}', {
    params: { path: { scraperId } },
    body: { url: startUrl, options: { max_pages: 1 } },
  });
  let runId: string | undefined;
  let startError: { code: ErrorCode; errorType?: string; needed?: number } | undefined;
  if (started.response.status === 202) runId = (started.data as Accepted).data.runId;
  else if (started.data && 'runId' in started.data.metadata) runId = started.data.metadata.runId;
  // Scraping-style errors carry errorType; the server's own 414 and 431 (before any route) do not.
  else if (started.error)
    startError = {
      code: started.error.code,
      needed: started.error.needed,
      ...('errorType' in started.error && { errorType: started.error.errorType }),
    };

  // Read the run, then its data: the extracted JSON itself (unknown until the scraper's schema says more), or 202 { runId, status }.
  let status: RunStatus | undefined;
  let extracted: unknown;
  let pending: { runId: string; status: 'queued' | 'running' } | undefined;
  if (runId) {
    const run = await api.GET('/api/scrape/runs/{runId}', { params: { path: { runId } } });
    status = run.data?.status;
    const data = await api.GET('/api/{scraperId}/data/{runId}', { params: { path: { scraperId, runId } } });
    if (data.response.status === 202) pending = data.data as DataPending;
    else extracted = data.data;
  }

  // A run no one has: a scraping-style 404.
  const missing = await api.GET('/api/scrape/runs/{runId}', { params: { path: { runId: '00000000-0000-4000-8000-000000000000' } } });
  const missingError: { success: false; errorType: string; code: 'not_found' } | undefined =
    missing.error?.code === 'not_found'
      ? { success: missing.error.success, errorType: missing.error.errorType, code: missing.error.code }
      : undefined;

  return {
    created,
    cap,
    replayed,
    requestId,
    rateLimit,
    emails,
    total,
    listError,
    runId,
    startError,
    status,
    extracted,
    pending,
    missingError,
  };
}
