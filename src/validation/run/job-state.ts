import { usageOf } from '../../credits/index.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import type { ValidationJobDoc } from '../validation-job.model.ts';
import { ValidationResult, type ValidationResultDoc } from '../validation-result.model.ts';
import {
  ValidationNote,
  ValidationWork,
  type ValidationNoteDoc,
  type ValidationWorkDoc,
  type WorkEntry,
} from '../validation-work.model.ts';
import { jobUsageAccount, type JobProgress } from './job-lifecycle.ts';

/** The temporary answers an address has had in the job. */
export interface Tries {
  count: number;
  lastAt: Date;
  lastReason: string;
}

/** Everything a run of the job needs to go on where the last one stopped. */
export interface JobState {
  entries: WorkEntry[];
  /** Results stored so far, by address. */
  results: Map<string, ValidationResultDoc>;
  tries: Map<string, Tries>;
  catchAll: Map<string, boolean>;
  progress: JobProgress;
  /** The number the next result gets. */
  nextOrder: number;
}

/**
 * Reads the job's work list (by primary key), its stored results and notes,
 * and its usage account, and restores its progress: results numbered below
 * `settledThrough` are counted; later ones are settled again by the run
 * (charging each at most once); billed figures are the usage account's.
 */
export async function loadJobState(job: ValidationJobDoc): Promise<JobState> {
  const chunkIds = Array.from({ length: job.chunks }, (_, n) => `${job._id}:${n}`);
  const [chunks, resultDocs, notes, usage] = await Promise.all([
    Promise.all(chunkIds.map((id) => ValidationWork.findById(id).lean<ValidationWorkDoc>())),
    ValidationResult.find({ jobId: job._id }).lean<ValidationResultDoc[]>(),
    ValidationNote.find({ jobId: job._id }).lean<ValidationNoteDoc[]>(),
    usageOf(job.workspaceId, jobUsageAccount(job._id)),
  ]);
  if (chunks.some((chunk) => !chunk)) throw new Error(`validation job ${job._id}: its work list is incomplete`);

  const progress: JobProgress = {
    processed: 0,
    billable: usage.items,
    creditsCharged: usage.charged,
    overageCredits: usage.overage,
    counts: {},
    deferred: 0,
    reused: 0,
    settledThrough: job.settledThrough,
    nextRetryAt: null,
  };
  const results = new Map<string, ValidationResultDoc>();
  let nextOrder = 0;
  for (const doc of resultDocs) {
    results.set(doc.address, doc);
    nextOrder = Math.max(nextOrder, doc.order + 1);
    if (doc.order >= job.settledThrough) continue;
    progress.processed += 1;
    progress.counts[doc.status] = (progress.counts[doc.status] ?? 0) + 1;
    if (doc.reused) progress.reused += 1;
  }

  const tries = new Map<string, Tries>();
  const catchAll = new Map<string, boolean>();
  for (const note of notes) {
    if (note.kind === 'catch_all') catchAll.set(note.domain!, note.catchAll!);
    if (note.kind !== 'retry') continue;
    const known = tries.get(note.address!);
    const at = note.at!;
    tries.set(note.address!, {
      count: (known?.count ?? 0) + 1,
      lastAt: known && known.lastAt > at ? known.lastAt : at,
      lastReason: known && known.lastAt > at ? known.lastReason : note.reason!,
    });
  }
  return { entries: chunks.flatMap((chunk) => JSON.parse(chunk!.entries) as WorkEntry[]), results, tries, catchAll, progress, nextOrder };
}

type Note = Pick<ValidationNoteDoc, '_id' | 'kind'> & Partial<Pick<ValidationNoteDoc, 'domain' | 'catchAll' | 'address' | 'reason' | 'at'>>;

/**
 * Writes a run's notes, each once: the notes recorded while a write is
 * under way go together in the next one (the domains checked at once each
 * have a catch-all answer to keep at about the same moment).
 */
export class NoteWriter {
  private readonly queued: Array<{ note: Note; written: () => void; failed: (error: unknown) => void }> = [];
  private writing = false;
  private readonly jobId: string;

  constructor(jobId: string) {
    this.jobId = jobId;
  }

  /** Records a temporary answer for an address (its `count`-th). */
  recordTry(address: string, count: number, reason: string, at: Date): Promise<void> {
    return this.add({ _id: `${this.jobId}:retry:${address}:${count}`, kind: 'retry', address, reason, at });
  }

  /** Records a domain's catch-all answer. */
  recordCatchAll(domain: string, answer: boolean): Promise<void> {
    return this.add({ _id: `${this.jobId}:catch_all:${domain}`, kind: 'catch_all', domain, catchAll: answer });
  }

  private add(note: Note): Promise<void> {
    return new Promise((written, failed) => {
      this.queued.push({ note, written, failed });
      if (!this.writing) void this.writeQueued();
    });
  }

  private async writeQueued() {
    this.writing = true;
    while (this.queued.length) {
      const batch = this.queued.splice(0);
      try {
        await ValidationNote.insertMany(
          batch.map(({ note }) => ({ ...note, jobId: this.jobId })),
          { ordered: false },
        ).catch((error: unknown) => {
          // Written by an earlier try of the run.
          if (!isDuplicateKey(error)) throw error;
        });
        for (const { written } of batch) written();
      } catch (error) {
        for (const { failed } of batch) failed(error);
      }
    }
    this.writing = false;
  }
}
