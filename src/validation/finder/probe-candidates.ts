import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { settings } from '../../config.ts';
import type { Outcome } from '../run/conclusions.ts';
import { checkDomain, type DomainFacts } from '../run/domain-check.ts';
import { maxTries } from '../run/run-job.ts';

/** What the domain's mail server said of each candidate, and of a made-up address. */
export interface CandidateAnswers {
  /** Whether the domain accepts any address; undefined when no conclusive answer came. */
  catchAll: boolean | undefined;
  /** Each candidate's last outcome, with the mail host that gave it (null when no RCPT was answered). */
  outcomes: Map<string, { outcome: Outcome; mxHost: string | null }>;
  provider: string | null;
}

/**
 * The workspace's made-up address at a domain, the same on every lookup: a greylisting server that deferred it once
 * lets it through when the finder asks again, on a later try or a later call.
 */
export const madeUpAddress = (workspaceId: string, domain: string) =>
  `nx-${createHash('sha256').update(`finder\n${workspaceId}\n${domain}`).digest('hex').slice(0, 16)}@${domain}`;

/**
 * Asks the domain's mail server about the candidates, likeliest first, with validation's domain check (its MX lookup,
 * its per-host connection limit, one conversation for all of them, the made-up address asked first). It stops at the
 * first candidate accepted, and at once for a catch-all domain (an RCPT there says nothing). Candidates answered for
 * now (greylisting, a dropped connection) are asked again after validation's retry delay, doubling, for up to its
 * number of tries, while that fits in VALIDATION_INLINE_WAIT_MS.
 */
export async function probeCandidates(workspaceId: string, domain: string, emails: string[]): Promise<CandidateAnswers> {
  const answers: CandidateAnswers = { catchAll: undefined, outcomes: new Map(), provider: null };
  const deadline = Date.now() + settings().VALIDATION_INLINE_WAIT_MS;
  let pending = emails;
  for (let attempt = 1; ; attempt++) {
    let found = false;
    await checkDomain({
      domain,
      addresses: pending,
      catchAll: answers.catchAll,
      catchAllProbe: madeUpAddress(workspaceId, domain),
      onCatchAll: async (answer) => void (answers.catchAll = answer),
      report: async (address, outcome, facts: DomainFacts) => {
        answers.outcomes.set(address, { outcome, mxHost: facts.mxHost });
        answers.provider ??= facts.provider;
        if (outcome.kind === 'final' && outcome.conclusion.status === 'valid') found = true;
      },
      shouldStop: () => found || answers.catchAll === true,
    });
    if (found || answers.catchAll === true) return answers;
    pending = pending.filter((email) => answers.outcomes.get(email)?.outcome.kind !== 'final');
    const wait = settings().VALIDATION_RETRY_DELAY_MS * 2 ** (attempt - 1);
    if (!pending.length || attempt >= maxTries || Date.now() + wait > deadline) return answers;
    await sleep(wait);
  }
}
