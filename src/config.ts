import { z } from 'zod';

/** Every setting comes from the environment; the README lists each one. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  MONGODB_URI: z.string().optional(),
  DATA_DIR: z.string().default('./data'),
  FERRETDB_BIN: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  PUBLIC_BASE_URL: z.string().optional(),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).default(5),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Comma-separated exact IPs scrapes may reach although they are not public (for example 127.0.0.1 in development). */
  SCRAPE_ALLOWED_ADDRESSES: z.string().default(''),
  /** Comma-separated host=ip pairs the scrape resolver answers itself, like curl's --resolve (tests, staging). */
  SCRAPE_HOST_OVERRIDES: z.string().default(''),
  SCRAPE_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).default(10_485_760),
  SCRAPE_PAGE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Crawls of one host a worker process runs at once (each fetches one page at a time). */
  SCRAPE_HOST_CONCURRENCY: z.coerce.number().int().min(1).default(2),
  /** How long a worker may hold a scrape run before another worker takes it over (it died). */
  SCRAPE_LOCK_LIFETIME_MS: z.coerce.number().int().min(1000).default(300_000),
  CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
  /** How long GET /v1/e/{slug} waits for a scrape before answering 202 with the run to poll. */
  INVOKE_INLINE_TIMEOUT_MS: z.coerce.number().int().min(100).default(110_000),
});

export type Config = z.infer<typeof envSchema> & { publicBaseUrl: string };

let current: Config | undefined;

/** The configuration in force: the last one loaded, or the process environment's. */
export const settings = (): Config => current ?? loadConfig();

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  const config = parsed.data;
  current = { ...config, publicBaseUrl: config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}` };
  return current;
}
