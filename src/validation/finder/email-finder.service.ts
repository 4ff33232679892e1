import type { z } from 'zod';
import type { findEmailInput, findEmailOutput } from '../../../schema/email-finder.ts';
import { now } from '../../clock.ts';
import { creditsExhausted, debitCredits, getBalances } from '../../credits/index.ts';
import { addressFacts } from '../../email-address/address-facts.ts';
import { AppError } from '../../errors/app-error.ts';
import { fieldError } from '../../errors/field-error.ts';
import { leadToFindEmailFor, recordFoundEmail, validatedAddressesAt } from '../../leads/index.ts';
import { candidates, knownPatterns, nameParts } from './candidates.ts';
import { probeCandidates, type CandidateAnswers } from './probe-candidates.ts';

type FindEmailInput = z.infer<typeof findEmailInput>;
type FoundEmail = z.infer<typeof findEmailOutput>;
type Verdict = Pick<FoundEmail, 'status' | 'reason' | 'detail'> & { index: number | null };

/** Of several reasons a lookup stayed `unknown`, the one that says most about what to do. */
const unknownReasons = ['smtp_unreachable', 'mail_host_not_public', 'blocked', 'greylisted_or_temporary', 'mailbox_full'];
const mailboxGone = new Set(['mailbox_not_found', 'mailbox_disabled']);

/** What the candidates' answers come to: the first accepted, the likeliest at a catch-all, none when all were refused. */
function verdictOf(answers: CandidateAnswers, emails: string[]): Verdict {
  if (answers.catchAll === true) return { status: 'accept_all', reason: null, detail: null, index: 0 };
  const outcomes = emails.map((email) => answers.outcomes.get(email));
  const valid = outcomes.findIndex((o) => o?.outcome.kind === 'final' && o.outcome.conclusion.status === 'valid');
  if (valid !== -1) return { status: 'valid', reason: null, detail: null, index: valid };
  const finals = outcomes.flatMap((o) => (o?.outcome.kind === 'final' ? [o.outcome.conclusion] : []));
  // Every candidate refused for good, or the domain takes no mail: nobody there by these names.
  if (finals.length === emails.length && finals.every((c) => c.status === 'invalid'))
    return {
      status: 'not_found',
      reason: finals.find((c) => !mailboxGone.has(c.reason))?.reason ?? 'mailbox_not_found',
      detail: null,
      index: null,
    };
  const why = outcomes.flatMap((o) => {
    if (!o || (o.outcome.kind === 'final' && o.outcome.conclusion.status === 'invalid')) return [];
    if (o.outcome.kind === 'final') return [{ reason: o.outcome.conclusion.reason, detail: o.outcome.conclusion.detail }];
    const dns = o.outcome.reason.startsWith('DNS:');
    // No mail host answered at all (no RCPT was ever answered): the probe port is closed or filtered on the way.
    return [{ reason: !dns && o.mxHost === null ? 'smtp_unreachable' : 'greylisted_or_temporary', detail: o.outcome.reason }];
  });
  why.sort((a, b) => unknownReasons.indexOf(a.reason) - unknownReasons.indexOf(b.reason));
  return { status: 'unknown', reason: why[0]?.reason ?? 'greylisted_or_temporary', detail: why[0]?.detail ?? null, index: null };
}

/** The name and domain to look with: the input's, else the lead's. */
async function subjectOf(workspaceId: string, input: FindEmailInput) {
  const lead = input.lead_id ? await leadToFindEmailFor(workspaceId, input.lead_id) : null;
  if (lead?.email)
    throw new AppError('conflict', 'lead_id: the lead has an email already, which the finder never overwrites', { field: 'lead_id' });
  const named = input.full_name !== undefined || input.first_name !== undefined;
  const name = nameParts(named || !lead ? input : { full_name: lead.full_name ?? '' });
  if (!name) throw fieldError({ field: named || !lead ? 'full_name' : 'lead_id', problem: 'needs a first and a last name' });
  const domain = input.domain ?? lead?.domain?.trim().toLowerCase();
  if (!domain) throw fieldError({ field: 'domain', problem: 'the lead has no domain: give one' });
  return { lead, name, domain };
}

/**
 * Finds a person's address at a company's domain: candidates from the usual patterns, the domain's pattern learnt
 * from the workspace's validated addresses there first, each asked of the domain's mail server (probeCandidates).
 * A conclusive lookup (`valid`, `accept_all`, `not_found`) costs one validation credit; `unknown` is free. With
 * `lead_id`, an address found is written to the lead while its email is still empty.
 */
export async function findEmail(workspaceId: string, input: FindEmailInput): Promise<FoundEmail> {
  const { lead, name, domain } = await subjectOf(workspaceId, input);
  // The balance and the domain's known addresses are read together: a lookup's store reads add to its wait.
  const [balances, addresses] = await Promise.all([getBalances(workspaceId), validatedAddressesAt(workspaceId, domain)]);
  if (balances.validation < 1 && !balances.overage) throw creditsExhausted('validation', 1, balances.validation);
  const known = knownPatterns(addresses);
  const list = candidates(name, domain, known);
  const emails = list.map((candidate) => candidate.email);
  const answers = await probeCandidates(workspaceId, domain, emails);
  const verdict = verdictOf(answers, emails);
  const chosen = verdict.index === null ? null : list[verdict.index]!;
  let charged = 0;
  if (verdict.status !== 'unknown') {
    const debit = await debitCredits(workspaceId, 'validation', 1);
    charged = debit.charged + debit.overage;
  }
  let leadUpdated = false;
  if (lead && chosen) {
    const facts = addressFacts(chosen.email);
    leadUpdated = await recordFoundEmail(workspaceId, lead.id, chosen.email, {
      email_status: verdict.status,
      email_provider: answers.provider,
      email_is_role: facts?.isRole ?? false,
      email_is_free: facts?.isFreeMail ?? false,
      email_validated_at: now(),
    });
  }
  return {
    email: chosen?.email ?? null,
    status: verdict.status,
    pattern: chosen?.pattern ?? null,
    known_pattern: known[0] ?? null,
    tried: [...answers.outcomes.values()].filter((o) => o.mxHost !== null).length,
    reason: verdict.reason,
    detail: verdict.detail,
    credits_charged: charged,
    lead_updated: leadUpdated,
  };
}
