import type { z } from 'zod';
import type { startValidationInput } from '../../schema/validation.ts';
import type { Principal } from '../auth/principal.ts';
import { brandFilter } from '../brands/index.ts';
import { fieldError } from '../errors/field-error.ts';
import { leadListFilter } from './lead-filter.ts';
import { recordLeadActivity } from './lead-activity.service.ts';
import { Lead, type LeadDoc } from './lead.models.ts';

/** What email validation needs of a lead: its address and its last validation. */
export interface LeadToValidate {
  id: string;
  email: string | null;
  emailStatus: string | null;
  emailProvider: string | null;
  emailIsRole: boolean | null;
  emailIsFree: boolean | null;
  emailValidatedAt: Date | null;
}

/** The most leads one validation job selects through a filter. */
export const maxFilteredLeads = 100_000;
/** Leads read per round trip (the store's default is a few hundred; these are a few small fields each). */
const readBatch = 5_000;

const fields = { email: 1, email_status: 1, email_provider: 1, email_is_role: 1, email_is_free: 1, email_validated_at: 1 } as const;
type ValidationFields = Pick<
  LeadDoc,
  '_id' | 'email' | 'email_status' | 'email_provider' | 'email_is_role' | 'email_is_free' | 'email_validated_at'
>;

const toLeadToValidate = (doc: ValidationFields): LeadToValidate => ({
  id: doc._id,
  email: doc.email ?? null,
  emailStatus: doc.email_status ?? null,
  emailProvider: doc.email_provider ?? null,
  emailIsRole: doc.email_is_role ?? null,
  emailIsFree: doc.email_is_free ?? null,
  emailValidatedAt: doc.email_validated_at ?? null,
});

type Selection = Pick<z.infer<typeof startValidationInput>, 'lead_ids' | 'filter'>;

/**
 * The leads a validation job checks: the workspace's leads among `lead_ids`
 * (in the order given; ids of other workspaces or of no lead are left
 * out, and counted in `missing`), or every lead the lead list's filters
 * select (at most maxFilteredLeads: 400 naming `filter` beyond).
 */
export async function leadsToValidate(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  selection: Selection,
): Promise<{ leads: LeadToValidate[]; missing: number }> {
  const { workspaceId } = principal;
  if (selection.lead_ids) {
    const ids = [...new Set(selection.lead_ids)];
    const docs = await Lead.find({ workspaceId, _id: { $in: ids } }, fields)
      .batchSize(readBatch)
      .lean<ValidationFields[]>();
    const byId = new Map(docs.map((doc) => [doc._id, toLeadToValidate(doc)]));
    const found = ids.flatMap((id) => byId.get(id) ?? []);
    return { leads: found, missing: ids.length - found.length };
  }
  const input = selection.filter ?? {};
  const filter = leadListFilter(workspaceId, await brandFilter(principal, input.brand, 'workspace'), input);
  const docs = await Lead.find(filter, fields)
    .sort({ createdAt: -1, _id: -1 })
    .limit(maxFilteredLeads + 1)
    .batchSize(readBatch)
    .lean<ValidationFields[]>();
  if (docs.length > maxFilteredLeads) {
    throw fieldError({
      field: 'filter',
      problem: `selects more than ${maxFilteredLeads.toLocaleString('en')} leads; narrow it or validate in parts`,
    });
  }
  return { leads: docs.map(toLeadToValidate), missing: 0 };
}

export interface EmailValidation {
  email_status: string;
  email_provider: string | null;
  email_is_role: boolean;
  email_is_free: boolean;
  email_validated_at: Date;
}

/** One lead's validation to write, with the email it was made for. */
export interface EmailValidationWrite {
  lead: { id: string; email: string };
  validation: EmailValidation;
}

/**
 * Writes validations to their leads, each only while the lead's email is
 * still one that was checked (a lead whose email changed meanwhile, or that
 * was deleted, keeps none), in one bulk write: the leads given the same
 * validation in one conditional updateMany, which the store applies far
 * faster than an update per lead. Answers how many were written.
 */
export async function recordEmailValidations(workspaceId: string, writes: EmailValidationWrite[]): Promise<number> {
  if (!writes.length) return 0;
  const alike = new Map<string, { validation: EmailValidation; ids: string[]; emails: Set<string> }>();
  for (const { lead, validation } of writes) {
    const key = JSON.stringify(validation);
    const group = alike.get(key) ?? { validation, ids: [], emails: new Set<string>() };
    alike.set(key, group);
    group.ids.push(lead.id);
    group.emails.add(lead.email);
  }
  const result = await Lead.bulkWrite(
    [...alike.values()].map(({ validation, ids, emails }) => ({
      updateMany: { filter: { _id: { $in: ids }, workspaceId, email: { $in: [...emails] } }, update: { $set: validation } },
    })),
    { ordered: false },
  );
  await recordValidatedActivity(workspaceId, writes, result.matchedCount);
  return result.matchedCount;
}

/** Each lead given its verdict: a `lead.validated` entry (those whose email changed meanwhile got none, and have none). */
async function recordValidatedActivity(workspaceId: string, writes: EmailValidationWrite[], matched: number): Promise<void> {
  let written = writes;
  if (matched < writes.length) {
    const current = await Lead.find({ workspaceId, _id: { $in: writes.map(({ lead }) => lead.id) } }, { email: 1 }).lean<
      Array<Pick<LeadDoc, '_id' | 'email'>>
    >();
    const emails = new Map(current.map((doc) => [doc._id, doc.email]));
    written = writes.filter(({ lead }) => emails.get(lead.id) === lead.email);
  }
  await recordLeadActivity(
    written.map(({ lead, validation }) => ({
      id: `${lead.id}:validated:${validation.email_validated_at.getTime()}`,
      workspaceId,
      leadId: lead.id,
      type: 'lead.validated',
      at: validation.email_validated_at,
      data: { email: lead.email, email_status: validation.email_status },
    })),
  );
}
