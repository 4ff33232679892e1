import { toLead } from './lead-mapper.ts';
import { emitEvent } from '../events/events.service.ts';
import { now } from '../clock.ts';
import { derivedKeys } from './lead-mapper.ts';
import { Lead, type LeadDoc } from './lead.models.ts';

/** What outreach needs of a lead: where to write, what to merge, and whether it may be written to at all. */
export interface OutreachLead {
  id: string;
  email: string | null;
  full_name: string | null;
  company: string | null;
  title: string | null;
  domain: string | null;
  location: string | null;
  status: LeadDoc['status'];
  archived: boolean;
  unsubscribed: boolean;
  /** The email validation's verdict (null until validated): outreach sends nothing to an `invalid` address. */
  emailStatus: string | null;
}

const toOutreachLead = (doc: LeadDoc): OutreachLead => ({
  id: doc._id,
  email: doc.email ?? null,
  full_name: doc.full_name ?? null,
  company: doc.company ?? null,
  title: doc.title ?? null,
  domain: doc.domain ?? null,
  location: doc.location ?? null,
  status: doc.status,
  archived: Boolean(doc.archivedAt),
  unsubscribed: Boolean(doc.unsubscribedAt),
  emailStatus: doc.email_status ?? null,
});

/** The fields toOutreachLead reads: a lead's other ones (search keys, the rest of its validation, custom values) are not read for each send. */
const outreachFields = {
  email: 1,
  full_name: 1,
  company: 1,
  title: 1,
  domain: 1,
  location: 1,
  status: 1,
  archivedAt: 1,
  unsubscribedAt: 1,
  email_status: 1,
};

/** The workspace's leads among `ids`, read by primary key (ids of other workspaces or of no lead are left out). */
export async function leadsForOutreach(workspaceId: string, ids: string[]): Promise<Map<string, OutreachLead>> {
  const docs = ids.length ? await Lead.find({ workspaceId, _id: { $in: [...new Set(ids)] } }, outreachFields).lean<LeadDoc[]>() : [];
  return new Map(docs.map((doc) => [doc._id, toOutreachLead(doc)]));
}

/** The email validation's verdict on the workspace's lead with this address (any spelling), or null when none has one. */
export async function emailStatusOfAddress(workspaceId: string, address: string): Promise<string | null> {
  const { emailKey } = derivedKeys({ email: address }, '');
  const doc = await Lead.findOne({ workspaceId, emailKey }, { email_status: 1 }).lean<Pick<LeadDoc, 'email_status'>>();
  return doc?.email_status ?? null;
}

const beforeContact: Array<LeadDoc['status']> = ['new', 'qualified'];

/**
 * A lead written to for the first time becomes `contacted` (a lead already
 * qualified further keeps its status). `knownStatus`, the status the
 * caller just read, spares the write for a lead contacted before.
 */
export async function markContacted(leadId: string, knownStatus?: LeadDoc['status']): Promise<void> {
  await markLeadsContacted([{ id: leadId, status: knownStatus }]);
}

/** markContacted for many leads, in one write. */
export async function markLeadsContacted(leads: Array<{ id: string; status?: LeadDoc['status'] }>): Promise<void> {
  const ids = leads.filter((lead) => !lead.status || beforeContact.includes(lead.status)).map((lead) => lead.id);
  if (ids.length)
    await Lead.updateMany({ _id: { $in: ids }, status: { $in: beforeContact } }, { $set: { status: 'contacted', updatedAt: now() } });
}

/** The lead asked to hear no more: its `unsubscribed_at` is set (once). */
export async function markUnsubscribed(leadId: string): Promise<void> {
  const at = now();
  const updated = await Lead.findOneAndUpdate(
    { _id: leadId, unsubscribedAt: null },
    { $set: { unsubscribedAt: at, updatedAt: at } },
    { returnDocument: 'after' },
  ).lean<LeadDoc>();
  if (updated) await emitEvent(updated.workspaceId, 'outreach.lead.unsubscribed', toLead(updated as LeadDoc), `${leadId}:${at.getTime()}`);
}
