import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import { z } from 'zod';

/** Every setting comes from the environment; the README lists each one. */
const envSchema = z.object({
  // Checked before coercion: Number('') is 0, which would quietly listen on a random port.
  PORT: z
    .string()
    .trim()
    .min(1, 'set but empty (unset it for 3000)')
    .transform(Number)
    .pipe(z.number().int().min(0).max(65535))
    .default(3000),
  HOST: z.string().default('0.0.0.0'),
  MONGODB_URI: z.string().optional(),
  DATA_DIR: z.string().default('./data'),
  FERRETDB_BIN: z.string().optional(),
  /** How long a service keeps running without its database connection before it exits, so a supervisor restarts it. */
  DATABASE_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  /** About the longest a call waits for a database that does not answer before it answers 503 database_unavailable (see src/db/connection.ts). */
  DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * `auto` detects FerretDB and then serializes conditional updates in the process; `mongodb` takes the
   * store's updates as atomic whatever it is (CI runs the suite this way to execute MongoDB's code path).
   */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  PUBLIC_BASE_URL: z.string().optional(),
  /** `true` behind a reverse proxy: the client's address is X-Forwarded-For's first entry and its protocol X-Forwarded-Proto. */
  TRUST_PROXY: z.stringbool().default(false),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** The largest CSV file `POST /api/leads/imports` takes (413 naming this setting beyond); streamed, never held whole. */
  IMPORT_MAX_BYTES: z.coerce.number().int().min(1024).default(52_428_800),
  /** How long a dead worker's CSV import stays locked before another worker takes it over from its last batch recorded. */
  IMPORT_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).default(60_000),
  /** How long a client may take to send its whole request, headers and body, before the server answers 408 and closes. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** The deepest a GraphQL query may nest: its selections, and lists and objects in its arguments (400 beyond). */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(15),
  /** The most lexical tokens a GraphQL document may hold (400 beyond): bounds the work of parsing and validating it. */
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).default(10_000),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).default(5),
  WORKER_STOP_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Serve GET /metrics (Prometheus text, no key needed): `true` or `false`. */
  METRICS_ENABLED: z.stringbool().default(true),
  /** Comma-separated exact IPs outbound calls (scrapes, agent fetches and searches, mail logins, validation probes, webhook deliveries, the model API) may reach although they are not public (for example 127.0.0.1 in development). */
  OUTBOUND_ALLOWED_ADDRESSES: z.string().default(''),
  /** Comma-separated host=ip pairs the outbound resolver answers itself, like curl's --resolve (tests, staging). */
  OUTBOUND_HOST_OVERRIDES: z.string().default(''),
  /** A PEM file of certificate authorities outbound TLS trusts besides Node's own (a private CA in staging; the tests'). */
  OUTBOUND_CA_FILE: z
    .string()
    .optional()
    .refine((file) => !file || existsSync(file), 'no such file'),
  /** Older names of the two settings above, still honoured (merged in). */
  SCRAPE_ALLOWED_ADDRESSES: z.string().default(''),
  SCRAPE_HOST_OVERRIDES: z.string().default(''),
  SCRAPE_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).default(10_485_760),
  SCRAPE_PAGE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Crawls of one host a worker process runs at once (each fetches one page at a time). */
  SCRAPE_HOST_CONCURRENCY: z.coerce.number().int().min(1).default(2),
  /** How long a worker may hold a scrape run before another worker takes it over (it died). */
  SCRAPE_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).default(300_000),
  CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
  /** Comma-separated origins browser clients may call the API from (CORS), or `*`; none by default. */
  CORS_ORIGINS: z.string().default(''),
  /** 32 bytes, base64: the key inbox passwords are encrypted with (AES-256-GCM). Required with MONGODB_URI; the embedded default keeps one in DATA_DIR. */
  SECRETS_KEY: z.string().optional(),
  /** The bounce guard pauses an inbox whose bounces over the last 24 hours pass this share of its sends... */
  BOUNCE_GUARD_RATE: z.coerce.number().gt(0).max(1).default(0.05),
  /** ...once it made at least this many sends in that time. */
  BOUNCE_GUARD_MIN_SENDS: z.coerce.number().int().min(1).default(20),
  /** How often the sending engine looks for due outreach steps. */
  OUTREACH_TICK_MS: z.coerce.number().int().min(100).default(30_000),
  MAILBOX_POLL_MS: z.coerce.number().int().min(1_000).default(60_000),
  /** How often a worker looks for scrape schedules that are due. */
  SCHEDULES_TICK_MS: z.coerce.number().int().min(1_000).default(15_000),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_MODEL: z.string().optional(),
  /** Comma-separated `ip` or `ip:port` name servers email validation asks for MX and A/AAAA records; the system's when empty. */
  DNS_SERVERS: z.string().default(''),
  /** The port SMTP probes connect to on a domain's mail host (25 in production; a loopback port in tests). */
  SMTP_PROBE_PORT: z.coerce.number().int().min(1).max(65535).default(25),
  /** The name SMTP probes give in EHLO: this host's public name, matching its PTR record, or mail servers distrust it. */
  SMTP_PROBE_HELO: z.string().trim().min(1).optional(),
  /** The envelope sender of SMTP probes (MAIL FROM); `verify@` the EHLO name when unset. */
  SMTP_PROBE_FROM: z.string().trim().min(3).optional(),
  /** SMTP connections a worker process holds to one mail host at once. */
  SMTP_PROBE_CONCURRENCY_PER_MX: z.coerce.number().int().min(1).max(20).default(2),
  /** How long a probe waits for a connection and for each answer. */
  SMTP_PROBE_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  /** Domains one validation job checks at once. */
  VALIDATION_DOMAIN_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(20),
  /** The wait before an address that got a temporary answer is asked again (doubling for the next try). */
  VALIDATION_RETRY_DELAY_MS: z.coerce.number().int().min(0).default(600_000),
  /** A conclusive result at most this many days old is reused instead of checked again (and not billed). */
  VALIDATION_CACHE_DAYS: z.coerce.number().min(0).default(30),
  /**
   * How long POST /api/leads/validate/address waits for its check before answering 202 with the job, and how long the
   * email finder goes on asking again after temporary answers (greylisting) before answering `unknown`.
   */
  VALIDATION_INLINE_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
  /** How long a worker may hold a validation job before another takes it over (it died). */
  VALIDATION_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).default(120_000),
  /** A SearXNG-compatible search API (`/search?q=…&format=json`) agent runs search the web with; without it they can only visit pages they are given. */
  SEARCH_URL: z.url().optional(),
  /** How long a dead worker's agent run stays locked before another worker takes it over and goes on from its last step. */
  AGENT_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).default(120_000),
  /** How long a dead worker's webhook attempt stays locked before another worker sends it again (same webhook-id). */
  WEBHOOK_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).default(60_000),
  /** How long GET /v1/e/{slug} waits for a scrape before answering 202 with the run to poll. */
  INVOKE_INLINE_TIMEOUT_MS: z.coerce.number().int().min(100).default(110_000),
});

export type Config = z.infer<typeof envSchema>;

/** The name of every setting the service reads from the environment. */
export const settingNames = Object.keys(envSchema.shape);

let current: Config | undefined;

/** The configuration in force: the last one loaded, or the process environment's. */
export const settings = (): Config => current ?? loadConfig();

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  current = parsed.data;
  return current;
}

const requestOrigin = new AsyncLocalStorage<string>();

/** Runs `work` knowing the origin the request being served was addressed to (scheme, host and port). */
export const withRequestOrigin = <T>(origin: string, work: () => T): T => requestOrigin.run(origin, work);

/**
 * The API's absolute base URL, for everything that names it to a client (the
 * OpenAPI server, OAuth issuer and resources, mail links, signed downloads):
 * PUBLIC_BASE_URL; unset (local use), the origin the request being served
 * was addressed to, so a client on 127.0.0.1 is not sent to localhost; and
 * outside any request (the worker's mail) this host.
 */
export const baseUrl = (config: Config = settings()) =>
  (config.PUBLIC_BASE_URL ?? requestOrigin.getStore() ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
