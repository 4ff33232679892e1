import { notFound } from '../errors/app-error.ts';
import { fillEmptyLeadFields } from './lead-enrichment.service.ts';
import { recordEmailValidations, type EmailValidation } from './lead-validation.service.ts';
import { Lead, type LeadDoc } from './lead.models.ts';

/** What the email finder needs of a lead: the name and domain to look with, and whether it has an email already. */
export interface LeadToFindEmailFor {
  id: string;
  full_name: string | null;
  domain: string | null;
  email: string | null;
}

/** The workspace's lead `id` (404 naming `lead_id` for another workspace's or none). */
export async function leadToFindEmailFor(workspaceId: string, id: string): Promise<LeadToFindEmailFor> {
  const doc = await Lead.findOne({ _id: id, workspaceId }, { full_name: 1, domain: 1, email: 1 }).lean<LeadDoc>();
  if (!doc) throw notFound('Lead', 'lead_id');
  return { id: doc._id, full_name: doc.full_name ?? null, domain: doc.domain ?? null, email: doc.email?.trim() || null };
}

/** Addresses learnt from: the most a domain's pattern is read from. */
const maxKnown = 200;

/**
 * The workspace's addresses at `domain` that validation found `valid`, with the name of the lead holding each: what the
 * finder learns the domain's pattern from (served by the leads' domain index).
 */
export async function validatedAddressesAt(workspaceId: string, domain: string): Promise<Array<{ email: string; full_name: string }>> {
  const docs = await Lead.find(
    { workspaceId, domain: domain.toLowerCase(), email_status: 'valid', full_name: { $nin: [null, ''] } },
    { email: 1, full_name: 1 },
  )
    .limit(maxKnown)
    .lean<LeadDoc[]>();
  const suffix = `@${domain.toLowerCase()}`;
  return docs.flatMap((doc) => (doc.email?.toLowerCase().endsWith(suffix) ? [{ email: doc.email, full_name: doc.full_name! }] : []));
}

/**
 * Writes an address the finder found to a lead whose email is empty, with its validation; a lead that has an email by
 * now keeps it, and an address another lead of the workspace has is not written. Answers whether it was written.
 */
export async function recordFoundEmail(workspaceId: string, leadId: string, email: string, validation: EmailValidation): Promise<boolean> {
  const { fields } = await fillEmptyLeadFields(workspaceId, leadId, { email }, {});
  if (!fields.includes('email')) return false;
  await recordEmailValidations(workspaceId, [{ lead: { id: leadId, email }, validation }]);
  return true;
}
