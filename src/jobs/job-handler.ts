import type { z } from 'zod';
import type { GiveUpReason, JobContract } from './job-contract.ts';

/** The queued job being run: its id is the same on every start of it, and differs between two jobs of one payload. */
export interface QueuedJob {
  id: string;
}

/** What runs a job (its contract says what the job is). Only the worker's registry imports handlers. */
export interface JobHandler<Payload extends z.ZodType = z.ZodType> {
  contract: JobContract<Payload>;
  handle(payload: z.infer<Payload>, job: QueuedJob): Promise<void>;
  /** Runs once the attempts are spent, to leave the work in a final state (for example a run marked failed). */
  giveUp?(payload: z.infer<Payload>, reason: GiveUpReason, job: QueuedJob): Promise<void>;
  /** Releases what the handler keeps between runs (pooled connections) when the worker stops. */
  onWorkerStop?(): void | Promise<void>;
}

export const handleJob = <Payload extends z.ZodType>(
  contract: JobContract<Payload>,
  handler: Omit<JobHandler<Payload>, 'contract'>,
): JobHandler<Payload> => ({
  contract,
  ...handler,
});
