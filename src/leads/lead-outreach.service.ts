import { toLead } from './lead-mapper.ts';
import { emitEvent } from '../events/events.service.ts';
import { now } from '../clock.ts';
import { derivedKeys } from './lead-mapper.ts';
import { recordLeadActivity } from './lead-activity.service.ts';
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

/** What made a lead unsubscribe, for its activity: the link in a message, or a reply asking to stop. */
export interface UnsubscribeCause {
  source: 'unsubscribe_link' | 'reply';
  campaignId?: string | null;
  messageId?: string | null;
}

/**
 * The lead asked to hear no more: its `unsubscribed_at` is set (once), and
 * announced. Asked again, it stores the event of the first time if the
 * process that set it died before doing so.
 */
export async function markUnsubscribed(leadId: string, cause: UnsubscribeCause): Promise<void> {
  const at = now();
  const updated = await Lead.findOneAndUpdate(
    { _id: leadId, unsubscribedAt: null },
    { $set: { unsubscribedAt: at, unsubscribeEventPendingAt: at, updatedAt: at } },
    { returnDocument: 'after' },
  ).lean<LeadDoc>();
  if (updated) {
    await recordLeadActivity([
      {
        id: `${leadId}:unsubscribed:${at.getTime()}`,
        workspaceId: updated.workspaceId,
        leadId,
        type: 'outreach.unsubscribed',
        at,
        campaignId: cause.campaignId ?? null,
        messageId: cause.messageId ?? null,
        data: { source: cause.source },
      },
    ]);
    return announceUnsubscription(updated, at);
  }
  const unannounced = await Lead.findOne({ _id: leadId, unsubscribeEventPendingAt: { $gt: new Date(0) } }).lean<LeadDoc>();
  if (unannounced) await announceUnsubscription(unannounced, unannounced.unsubscribeEventPendingAt!);
}

/**
 * Stores the event of the lead's unsubscription at `at` (its id derived from the lead and that time, so storing it
 * again finds it), then clears the unsubscription's mark.
 */
async function announceUnsubscription(lead: LeadDoc, at: Date): Promise<void> {
  await emitEvent(lead.workspaceId, 'outreach.lead.unsubscribed', toLead(lead), `${lead._id}:${at.getTime()}`);
  await Lead.updateOne(
    { _id: lead._id, unsubscribeEventPendingAt: at },
    { $unset: { unsubscribeEventPendingAt: 1 } },
    { timestamps: false },
  );
}

/**
 * Stores the events of unsubscriptions whose process died before storing
 * them (the sending engine's passes call this). Safe to run anywhere at once.
 */
export async function announcePendingUnsubscriptions(limit = 100): Promise<void> {
  const pending = await Lead.find({ unsubscribeEventPendingAt: { $gt: new Date(0) } })
    .limit(limit)
    .lean<LeadDoc[]>();
  for (const lead of pending) await announceUnsubscription(lead, lead.unsubscribeEventPendingAt!);
}
