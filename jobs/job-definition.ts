import type { z } from 'zod';

/** A background job: its name, payload contract, retry policy and handler. */
export interface JobDefinition<Payload extends z.ZodType = z.ZodType> {
  name: string;
  payload: Payload;
  /** Attempts after the first failure before the job is left failed. */
  retries: number;
  /** Cron expression or interval for recurring jobs. */
  every?: string;
  /** How long a worker may hold the job before another may take it over (ms), read when the worker starts. */
  lockLifetimeMs?: () => number;
  handle(payload: z.infer<Payload>): Promise<void>;
}

export const defineJob = <Payload extends z.ZodType>(definition: JobDefinition<Payload>) => definition;
