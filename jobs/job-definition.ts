import type { z } from 'zod';

/** Why a job was given up: its last attempt failed, or its workers kept dying. */
export interface GiveUpReason {
  kind: 'failed' | 'interrupted';
  message: string;
  /** Times the job started. */
  starts: number;
}

/**
 * A background job, defined once: its name, payload contract, retry policy
 * and handler. It is enqueued through this definition (queue.ts), never by
 * its name, and its payload is checked on enqueue and again on run.
 */
export interface JobDefinition<Payload extends z.ZodType = z.ZodType> {
  name: string;
  payload: Payload;
  /**
   * Attempts after the first before the job is given up. Every start
   * counts, a worker dying mid-job included, so a job that kills its worker
   * cannot run forever.
   */
  retries: number;
  /** Cron expression or interval for recurring jobs (a function when a setting decides it). */
  every?: string | (() => string | number);
  /** How long a worker may hold the job before another may take it over (ms), read when the worker starts. */
  lockLifetimeMs?: () => number;
  handle(payload: z.infer<Payload>): Promise<void>;
  /** Runs once the attempts are spent, to leave the work in a final state (for example a run marked failed). */
  giveUp?(payload: z.infer<Payload>, reason: GiveUpReason): Promise<void>;
  /** Releases what the handler keeps between runs (pooled connections) when the worker stops. */
  onWorkerStop?(): void | Promise<void>;
}

export const defineJob = <Payload extends z.ZodType>(definition: JobDefinition<Payload>) => definition;
