import type { z } from 'zod';

/** Why a job was given up: its last attempt failed, or its workers kept dying. */
export interface GiveUpReason {
  kind: 'failed' | 'interrupted';
  message: string;
  /** Times the job started. */
  starts: number;
}

/**
 * What a background job is, apart from what runs it: its name, payload
 * contract and retry policy. A domain's jobs stand in its jobs/ folder, each
 * contract (`<name>.job.ts`) beside its handler (`<name>.handler.ts`).
 * Services enqueue through the contract (queue.ts) and never see the
 * handler; only the worker's registry (src/worker/registry.ts) imports
 * handlers.
 */
export interface JobContract<Payload extends z.ZodType = z.ZodType> {
  name: string;
  payload: Payload;
  /**
   * Attempts after the first before the job is given up. Every start
   * counts, a worker dying mid-job included, so a job that kills its worker
   * cannot run forever.
   */
  retries: number;
  /** For a recurring job, its interval (ms), read when the worker starts. */
  everyMs?: () => number;
  /** How long a worker may hold the job before another may take it over (ms), read when the worker starts. */
  lockLifetimeMs?: () => number;
}

export const defineJobContract = <Payload extends z.ZodType>(contract: JobContract<Payload>) => contract;
