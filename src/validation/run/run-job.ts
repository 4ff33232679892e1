import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { validationRunJob } from '../jobs/validation-run.job.ts';
import { enqueueAt } from '../../jobs/queue.ts';
import type { EmailStatus } from '../../../schema/validation.ts';
import { settings } from '../../config.ts';
import { now, nowMs } from '../../clock.ts';
import { getBalances } from '../../credits/index.ts';
import { addressFacts, type AddressFacts } from '../../email-address/address-facts.ts';
import type { ValidationJobDoc } from '../validation-job.model.ts';
import type { WorkEntry } from '../validation-work.model.ts';
import type { Outcome } from './conclusions.ts';
import { checkDomain, type DomainFacts } from './domain-check.ts';
import { closeEndedJob, endJob, isActiveJob, pauseJob, readJob, takeLease, writeProgress, type JobProgress } from './job-lifecycle.ts';
import { loadJobState, NoteWriter, type JobState } from './job-state.ts';
import { Settler, type ResultDraft } from './settle.ts';

/** Tries an address gets before it ends `unknown` when every answer was temporary. */
export const maxTries = 3;

/** When an address with `count` temporary answers, the last at `lastAt`, is asked again: the delay doubles each time. */
const dueAt = (count: number, lastAt: Date) => new Date(lastAt.getTime() + settings().VALIDATION_RETRY_DELAY_MS * 2 ** (count - 1));

/** The job's made-up address at a domain, the same on every try (a greylisting server lets it through the second time). */
const madeUpAddress = (jobId: string, domain: string) =>
  `nx-${createHash('sha256').update(`${jobId}\n${domain}`).digest('hex').slice(0, 16)}@${domain}`;

/**
 * One run of a validation job (the validate-emails job): takes the job's
 * lease, goes on from what earlier runs stored, checks every address that
 * is due, writes progress about once a second, then ends the job, or
 * schedules its continuation for the addresses that got a temporary answer
 * and gives the job up until then. `at` is the time a continuation was
 * scheduled for. Safe to run again after a crash.
 */
export async function runValidationJob(jobId: string, at?: string): Promise<void> {
  const leaseMs = Math.floor(settings().VALIDATION_LOCK_LIFETIME_MS / 2);
  const owner = randomUUID();
  // Another run holds the job: it may be about to leave it to this continuation, or have died (its lease then
  // lapses); a live one that keeps it longer than a lease keeps it for good.
  const giveUpAt = Date.now() + leaseMs + 1_000;
  let lease = await takeLease(jobId, owner, leaseMs, at);
  while (lease.kind === 'busy' && Date.now() < giveUpAt) {
    await sleep(200);
    lease = await takeLease(jobId, owner, leaseMs, at);
  }
  if (lease.kind !== 'taken') {
    const job = await readJob(jobId);
    // A run that died after ending the job (or while it was cancelled), its continuation's included, left its cleanup
    // and event to this one (done again if it had done them: each is safe to repeat).
    if (job && !isActiveJob(job.status)) await closeEndedJob(job);
    return;
  }
  await new JobRun(lease.job, owner, leaseMs, await loadJobState(lease.job)).run();
}

class JobRun {
  private readonly settler: Settler;
  private readonly notes: NoteWriter;
  private readonly progress: JobProgress;
  private readonly deferred = new Set<string>();
  private halted: 'cancelled' | 'lost' | null = null;
  private readonly job: ValidationJobDoc;
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly state: JobState;

  constructor(job: ValidationJobDoc, owner: string, leaseMs: number, state: JobState) {
    this.job = job;
    this.owner = owner;
    this.leaseMs = leaseMs;
    this.state = state;
    this.progress = state.progress;
    this.settler = new Settler(job, this.progress, state.nextOrder);
    this.notes = new NoteWriter(job._id);
  }

  private get stopping() {
    return this.halted !== null || this.settler.stopped !== null || this.settler.failure !== null;
  }

  async run(): Promise<void> {
    const { results, tries } = this.state;
    void this.settler.resettle([...results.values()].filter((doc) => doc.order >= this.job.settledThrough));
    await this.settler.idle();
    const pending = this.state.entries.filter((entry) => !results.has(entry.address));
    for (const entry of pending) if (tries.has(entry.address)) this.deferred.add(entry.address);
    this.progress.deferred = this.deferred.size;
    const balances = await getBalances(this.job.workspaceId);
    // Nothing billable can be paid for: stop before asking anybody.
    if (pending.length && balances.validation < 1 && !balances.overage) this.settler.stopped = 'credits';

    const flusher = setInterval(() => void this.flush(), 1_000);
    try {
      const due = pending.filter(
        (entry) =>
          !tries.has(entry.address) || dueAt(tries.get(entry.address)!.count, tries.get(entry.address)!.lastAt).getTime() <= nowMs(),
      );
      await this.check(due);
      await this.settler.idle();
    } finally {
      clearInterval(flusher);
    }
    await this.finish();
  }

  /** Writes progress and renews the lease; a cancel or a lost lease stops the run. */
  private async flush() {
    if (this.halted) return;
    const answer = await writeProgress(this.job._id, this.owner, this.currentProgress(), this.leaseMs).catch(() => 'ok' as const);
    if (answer === 'ok') return;
    this.halted = answer;
    // Another run has the job: not one more result from this one, whose numbers would clash with its.
    if (answer === 'lost') this.settler.stopped = 'lost';
  }

  /** The progress to show: the deferred addresses and when the first of them is asked again. */
  private currentProgress(): JobProgress {
    return { ...this.progress, deferred: this.deferred.size, nextRetryAt: this.nextRetry() };
  }

  private nextRetry(): Date | null {
    if (!this.deferred.size) return null;
    const tries = this.state.tries;
    return new Date(
      Math.min(...[...this.deferred].map((address) => dueAt(tries.get(address)!.count, tries.get(address)!.lastAt).getTime())),
    );
  }

  /** Settles what needs no network at once, then checks the rest a domain at a time, several domains at once. */
  private async check(due: WorkEntry[]) {
    const byDomain = new Map<string, Array<{ entry: WorkEntry; facts: AddressFacts }>>();
    for (const entry of due) {
      const facts = entry.reuse ? null : addressFacts(entry.address);
      if (entry.reuse)
        void this.conclude(entry, {
          ...entry.reuse,
          status: entry.reuse.status as EmailStatus,
          reason: 'reused',
          detail: null,
          mxHost: null,
          tries: 0,
          reused: true,
        });
      else if (!facts)
        void this.conclude(entry, {
          status: 'invalid',
          reason: 'bad_syntax',
          detail: null,
          provider: null,
          mxHost: null,
          isRole: false,
          isFree: false,
          tries: 0,
          reused: false,
        });
      else if (facts.isDisposable)
        void this.conclude(entry, {
          status: 'disposable',
          reason: 'disposable_domain',
          detail: null,
          provider: null,
          mxHost: null,
          isRole: facts.isRole,
          isFree: facts.isFreeMail,
          tries: 0,
          reused: false,
        });
      else byDomain.set(facts.domain, [...(byDomain.get(facts.domain) ?? []), { entry, facts }]);
    }
    const domains = [...byDomain];
    const worker = async () => {
      for (let next = domains.shift(); next && !this.stopping; next = domains.shift()) await this.checkOneDomain(...next);
    };
    await Promise.all(Array.from({ length: settings().VALIDATION_DOMAIN_CONCURRENCY }, worker));
  }

  private async checkOneDomain(domain: string, items: Array<{ entry: WorkEntry; facts: AddressFacts }>) {
    const byAddress = new Map(items.map((item) => [item.entry.address, item]));
    await checkDomain({
      domain,
      addresses: [...byAddress.keys()],
      catchAll: this.state.catchAll.get(domain),
      catchAllProbe: madeUpAddress(this.job._id, domain),
      onCatchAll: (answer) => this.notes.recordCatchAll(domain, answer),
      report: (address, outcome, facts) => this.take(byAddress.get(address)!, outcome, facts),
      shouldStop: () => this.stopping,
    });
  }

  /** One try's outcome: a conclusion to settle, or a temporary answer to ask again after (until the tries run out). */
  private async take({ entry, facts }: { entry: WorkEntry; facts: AddressFacts }, outcome: Outcome, found: DomainFacts) {
    const triesSoFar = this.state.tries.get(entry.address)?.count ?? 0;
    const shared = {
      provider: found.provider,
      mxHost: found.mxHost,
      isRole: facts.isRole,
      isFree: facts.isFreeMail,
      tries: triesSoFar + 1,
      reused: false,
    };
    // Settling goes on behind the conversations (run() waits for it at the end): a domain does not wait for it.
    if (outcome.kind === 'final') return void this.conclude(entry, { ...outcome.conclusion, ...shared });
    if (triesSoFar + 1 >= maxTries)
      return void this.conclude(entry, { status: 'unknown', reason: 'greylisted_or_temporary', detail: outcome.reason, ...shared });
    if (this.stopping) return;
    const at = now();
    await this.notes.recordTry(entry.address, triesSoFar + 1, outcome.reason, at);
    this.state.tries.set(entry.address, { count: triesSoFar + 1, lastAt: at, lastReason: outcome.reason });
    this.deferred.add(entry.address);
  }

  private async conclude(entry: WorkEntry, draft: ResultDraft) {
    await this.settler.settle(entry, draft);
    if (!this.settler.stopped) this.deferred.delete(entry.address);
  }

  /** Ends the job, or leaves it to a continuation at the earliest retry. */
  private async finish() {
    const { job, owner } = this;
    const progress = this.currentProgress();
    if (this.halted === 'lost') return;
    if (this.halted === 'cancelled' || this.settler.stopped === 'closed')
      return endJob(job._id, owner, progress, { status: 'cancelled', error: null });
    if (this.settler.stopped === 'credits')
      return endJob(job._id, owner, progress, { status: 'completed', error: 'validation_credits_exhausted' });
    if (this.deferred.size === 0) return endJob(job._id, owner, progress, { status: 'completed', error: null });
    const next = progress.nextRetryAt!;
    // Scheduled before the job is given up, so a waiting job always has its continuation.
    // The queue runs on real time; the service's clock may be moved (tests).
    await enqueueAt(validationRunJob, new Date(Date.now() + Math.max(0, next.getTime() - nowMs())), {
      jobId: job._id,
      at: next.toISOString(),
    });
    if (!(await pauseJob(job._id, owner, progress, next))) await endJob(job._id, owner, progress, { status: 'cancelled', error: null });
  }
}
