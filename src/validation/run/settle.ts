import { billableStatuses, type EmailStatus } from '../../../schema/validation.ts';
import { now } from '../../clock.ts';
import { debitCredits, getBalances, usageOf, UsageAccountClosedError } from '../../credits/index.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { AppError } from '../../errors/app-error.ts';
import { recordEmailValidations } from '../../leads/index.ts';
import { ValidationResult, type ValidationResultDoc } from '../validation-result.model.ts';
import type { WorkEntry } from '../validation-work.model.ts';
import { jobUsageAccount, type JobProgress } from './job-lifecycle.ts';

/** A result before it is stored: the verdict and the facts found on the way. */
export interface ResultDraft {
  status: EmailStatus;
  reason: string;
  detail: string | null;
  provider: string | null;
  mxHost: string | null;
  isRole: boolean;
  isFree: boolean;
  tries: number;
  reused: boolean;
}

/** Why settling stopped before the work did. */
export type SettleStop = 'credits' | 'closed' | 'lost';

type Settling = Pick<ValidationResultDoc, '_id' | 'order' | 'billable' | 'reused' | 'status' | 'provider' | 'isRole' | 'isFree' | 'leads'>;

/**
 * The most results settled together (one insert, one charge, one lead
 * write): a batch takes whatever concluded while the last one was settled,
 * so settling keeps up with the conversations in fewer, larger writes.
 */
const maxBatch = 250;
/** Fewer results waiting than this, a batch first waits gatherMs for more: each batch costs four commands whatever its size. */
const enoughForBatch = 100;
const gatherMs = 50;

/**
 * Settles a job's results in the order they are concluded, a batch at a
 * time: the batch's results are stored (numbered on from the last, one
 * unique id per address), then its billable ones charged in one charge
 * covering those numbers on the job's usage account, then written to their
 * leads and counted. A run that dies leaves at most one batch stored but
 * not charged, which the next run charges (numbers charged already are not
 * charged again). When the balance cannot pay for a whole batch, what it
 * can pay for is settled, the rest removed (its leads untouched), and
 * settling stops.
 */
export class Settler {
  stopped: SettleStop | null = null;
  failure: unknown = null;
  private tail: Promise<void> = Promise.resolve();
  private readonly waiting: Array<{ entry: WorkEntry; draft: ResultDraft }> = [];
  /** Set while idle() waits: batches go at once. */
  private hurry = false;
  private wake: (() => void) | null = null;
  private nextOrder: number;
  private readonly jobId: string;
  private readonly workspaceId: string;
  private readonly progress: JobProgress;

  constructor(job: { _id: string; workspaceId: string }, progress: JobProgress, nextOrder: number) {
    this.jobId = job._id;
    this.workspaceId = job.workspaceId;
    this.progress = progress;
    this.nextOrder = nextOrder;
  }

  /** Queues a new conclusion for an address; resolves once it is settled (or settling stopped). */
  settle(entry: WorkEntry, draft: ResultDraft): Promise<void> {
    this.waiting.push({ entry, draft });
    return this.inTurn(() => this.settleWaiting());
  }

  /** Queues the results an earlier run stored but may not have charged or written to their leads. */
  resettle(docs: ValidationResultDoc[]): Promise<void> {
    if (!docs.length) return this.tail;
    return this.inTurn(async () => {
      const sorted = [...docs].sort((a, b) => a.order - b.order);
      const { next } = await usageOf(this.workspaceId, jobUsageAccount(this.jobId));
      // Charged already: counted in the account's items, which the run's progress started from.
      const charged = sorted.filter((doc) => doc.order < next);
      await this.apply(charged, 0);
      for (let i = 0; i < sorted.length - charged.length && !this.stopped; i += maxBatch)
        await this.chargeAndApply(sorted.slice(charged.length + i, charged.length + i + maxBatch));
    });
  }

  /** Resolves once every queued result is settled; throws what stopped settling if it failed. */
  async idle(): Promise<void> {
    this.hurry = true;
    this.wake?.();
    try {
      await this.tail;
    } finally {
      this.hurry = false;
    }
    if (this.failure) throw this.failure;
  }

  private inTurn(task: () => Promise<void>): Promise<void> {
    this.tail = this.tail.then(async () => {
      if (this.stopped || this.failure) return;
      try {
        await task();
      } catch (error) {
        this.failure = error;
      }
    });
    return this.tail;
  }

  private async settleWaiting() {
    if (this.waiting.length && this.waiting.length < enoughForBatch && !this.hurry) await this.gather();
    const batch = this.waiting.splice(0, maxBatch);
    if (!batch.length) return;
    const createdAt = new Date();
    // Complete as the schema stores them: inserted lean, without a mongoose document built and validated for each.
    const docs = batch.map(({ entry, draft }) => ({
      _id: `${this.jobId}:${entry.address}`,
      jobId: this.jobId,
      workspaceId: this.workspaceId,
      order: this.nextOrder++,
      address: entry.address,
      leads: entry.leads,
      billable: !draft.reused && billableStatuses.includes(draft.status),
      ...draft,
      createdAt,
    }));
    try {
      await ValidationResult.insertMany(docs, { ordered: false, lean: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // Another run of the job stored some of these: it holds the job now. Take back the rest and stop.
      const taken = new Set((error as { writeErrors?: Array<{ index: number }> }).writeErrors?.map((e) => e.index));
      for (const [i, doc] of docs.entries()) if (!taken.has(i)) await ValidationResult.deleteOne({ _id: doc._id });
      this.stopped = 'lost';
      return;
    }
    await this.chargeAndApply(docs);
  }

  private async gather() {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, gatherMs);
      this.wake = () => (clearTimeout(timer), resolve());
    });
    this.wake = null;
  }

  /** Charges the batch's billable results in one charge (what the balance covers, when it cannot pay for all), then applies what was paid for. */
  private async chargeAndApply(docs: Settling[]) {
    if (!docs.length) return;
    const billable = docs.filter((doc) => doc.billable);
    let paid = docs;
    let billed = 0;
    for (let affordable = billable.length; affordable > 0;) {
      // Short of credits, the results up to the last billable one the balance covers.
      paid = affordable === billable.length ? docs : docs.filter((doc) => doc.order <= billable[affordable - 1]!.order);
      const once = { account: jobUsageAccount(this.jobId), sequence: docs[0]!.order, through: paid.at(-1)!.order, items: affordable };
      try {
        const debit = await debitCredits(this.workspaceId, 'validation', affordable, once);
        if (!debit.repeated) {
          billed = affordable;
          this.progress.creditsCharged += debit.charged;
          this.progress.overageCredits += debit.overage;
        }
        break;
      } catch (error) {
        // The job ended (cancelled) meanwhile: nothing more is charged to it.
        if (error instanceof UsageAccountClosedError) return void (this.stopped = 'closed');
        if (!(error instanceof AppError && error.code === 'validation_credits_exhausted')) throw error;
        this.stopped = 'credits';
        affordable = Math.min(affordable - 1, (await getBalances(this.workspaceId)).validation);
        if (affordable === 0) paid = [];
      }
    }
    const unpaid = docs.filter((doc) => !paid.includes(doc));
    for (const doc of unpaid) await ValidationResult.deleteOne({ _id: doc._id });
    await this.apply(paid, billed);
  }

  /** Writes settled results to their leads (reused ones have theirs already) and counts them, `billed` of them newly charged. */
  private async apply(docs: Settling[], billed: number) {
    if (!docs.length) return;
    const validatedAt = now();
    const writes = docs
      .filter((doc) => !doc.reused)
      .flatMap((doc) => {
        const validation = {
          email_status: doc.status,
          email_provider: doc.provider ?? null,
          email_is_role: doc.isRole,
          email_is_free: doc.isFree,
          email_validated_at: validatedAt,
        };
        return doc.leads.map((lead) => ({ lead: { id: lead.id!, email: lead.email! }, validation }));
      });
    await recordEmailValidations(this.workspaceId, writes);
    const progress = this.progress;
    progress.billable += billed;
    for (const doc of docs) {
      progress.processed += 1;
      progress.counts[doc.status] = (progress.counts[doc.status] ?? 0) + 1;
      if (doc.reused) progress.reused += 1;
    }
    progress.settledThrough = Math.max(progress.settledThrough, docs.at(-1)!.order + 1);
  }
}
