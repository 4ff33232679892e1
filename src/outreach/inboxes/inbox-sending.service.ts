import { toInbox } from './inbox-mapper.ts';
import { emitEvent } from '../../events/events.service.ts';
import { now } from '../../clock.ts';
import { settings } from '../../config.ts';
import { findOwned } from '../../db/find-owned.ts';
import { notFound } from '../../errors/app-error.ts';
import { openSecret } from '../../secrets/secret-box.ts';
import { capToday, last24hFigures } from './inbox-figures.ts';
import { Inbox, type InboxDoc } from './inbox.model.ts';

/** What the sending engine needs of an inbox: its sender, an SMTP transport's settings (password opened), today's cap, its pause. */
export interface SendingInbox {
  id: string;
  brandId: string;
  from: string;
  /** The sender name, or '' when the inbox has none (the address alone is shown). */
  fromName: string;
  transport: { host: string; port: number; secure: boolean; auth: { user: string; pass: string } };
  /** Sends allowed in the rolling 24 hours today (warmup included): pass it to takeInboxSlot. */
  cap: number;
  /** Set while sending is paused (the bounce guard, or a request): send nothing from it. */
  pausedAt: Date | null;
}

const toSendingInbox = (doc: InboxDoc): SendingInbox => ({
  id: doc._id,
  brandId: doc.brandId,
  from: doc.from,
  fromName: doc.fromName ?? '',
  transport: {
    host: doc.smtp.host,
    port: doc.smtp.port,
    secure: doc.smtp.secure,
    auth: { user: doc.smtp.user, pass: openSecret(doc.smtp.passwordSealed) },
  },
  cap: capToday(doc).cap,
  pausedAt: doc.sendingPausedAt ?? null,
});

const findInbox = async (workspaceId: string, id: string) => (await findOwned(Inbox, id, workspaceId)) as InboxDoc | null;

/** One inbox of the workspace, ready to send from; 404 for another workspace's or none. */
export async function inboxForSending(workspaceId: string, inboxId: string): Promise<SendingInbox> {
  const doc = await findInbox(workspaceId, inboxId);
  if (!doc) throw notFound('Inbox');
  return toSendingInbox(doc);
}

/** The workspace's inboxes among `ids`, in the order asked, each once; ids it does not have are left out (compare the lengths). */
export async function inboxesForSending(workspaceId: string, ids: string[]): Promise<SendingInbox[]> {
  const docs = await Inbox.find({ workspaceId, _id: { $in: [...new Set(ids)] } }).lean<InboxDoc[]>();
  // In the order asked for: the campaign's rotation.
  const byId = new Map(docs.map((doc) => [doc._id, doc]));
  return [...new Set(ids)].flatMap((id) => (byId.has(id) ? [toSendingInbox(byId.get(id)!)] : []));
}

const percent = (rate: number) => `${(rate * 100).toFixed(1).replace(/\.0$/, '')}%`;

/**
 * The bounce guard, run by the sending engine after each bounce: pauses the
 * inbox when its bounces over the rolling 24 hours exceed BOUNCE_GUARD_RATE
 * of its sends there (as its cap's slots count them), once it made at least
 * BOUNCE_GUARD_MIN_SENDS (a few bounces among few sends say little). True
 * when this call paused it; an inbox already paused keeps its first reason.
 */
export async function applyBounceGuard(workspaceId: string, inboxId: string): Promise<boolean> {
  const doc = await findInbox(workspaceId, inboxId);
  if (!doc) throw notFound('Inbox');
  // A pause whose process died before its event was stored: its event first.
  if (doc.pauseEventPendingAt) await announcePause(doc, doc.pauseEventPendingAt);
  if (doc.sendingPausedAt) return false;
  const { BOUNCE_GUARD_RATE: limit, BOUNCE_GUARD_MIN_SENDS: minSends } = settings();
  const { sent24h, bounced24h, bounceRate24h } = await last24hFigures(inboxId);
  if (sent24h < minSends || bounceRate24h <= limit) return false;
  const reason = `Bounce guard: ${bounced24h} bounces in ${sent24h} sends over the last 24 hours (${percent(bounceRate24h)}), above the ${percent(limit)} limit`;
  // Only an inbox still sending is paused: two bounces racing here pause it once, with one reason. The pause and the
  // mark of its event still to store are one write; an earlier pause whose event is unstored is never written over.
  const at = now();
  const paused = await Inbox.findOneAndUpdate(
    { _id: inboxId, sendingPausedAt: null, pauseEventPendingAt: null },
    { $set: { sendingPausedAt: at, sendingPausedReason: reason, pauseEventPendingAt: at } },
    { returnDocument: 'after' },
  ).lean<InboxDoc>();
  if (paused) await announcePause(paused, at);
  return paused !== null;
}

/**
 * Stores the event of the bounce guard's pause at `at` (its id derived from the inbox and that time, so storing it
 * again finds it), then clears the pause's mark.
 */
async function announcePause(inbox: InboxDoc, at: Date): Promise<void> {
  await emitEvent(inbox.workspaceId, 'outreach.inbox.paused', await toInbox(inbox), `${inbox._id}:${at.getTime()}`);
  await Inbox.updateOne({ _id: inbox._id, pauseEventPendingAt: at }, { $unset: { pauseEventPendingAt: 1 } }, { timestamps: false });
}

/**
 * Stores the events of pauses whose process died before storing them (the
 * sending engine's passes call this). Safe to run anywhere at once.
 */
export async function announcePendingPauses(limit = 100): Promise<void> {
  const pending = await Inbox.find({ pauseEventPendingAt: { $gt: new Date(0) } })
    .limit(limit)
    .lean<InboxDoc[]>();
  for (const inbox of pending) await announcePause(inbox, inbox.pauseEventPendingAt!);
}
