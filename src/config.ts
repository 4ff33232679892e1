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
});

export type Config = z.infer<typeof envSchema> & { publicBaseUrl: string };

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  const config = parsed.data;
  return { ...config, publicBaseUrl: config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}` };
}
