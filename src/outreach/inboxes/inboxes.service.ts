import type { z } from 'zod';
import type { createInboxInput, InboxOut, updateInboxInput } from '../../../schema/outreach/inboxes.ts';
import type { Principal } from '../../auth/principal.ts';
import { assertBrandInWorkspace, brandFilter, brandForWrite } from '../../brands/index.ts';
import { now } from '../../clock.ts';
import { findOwned } from '../../db/find-owned.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { fieldError } from '../../errors/field-error.ts';
import { openSecret, sealSecret } from '../../secrets/secret-box.ts';
import { activeCampaignNamesUsing } from '../campaign-record/campaign-usage.ts';
import { inboxSlotsLast24h } from '../counters/send-slots.ts';
import { capToday } from './inbox-figures.ts';
import { verifyImap, verifySmtp, type ServerLogin } from './inbox-verification.ts';
import { toInbox } from './inbox-mapper.ts';
import { Inbox, type InboxDoc } from './inbox.model.ts';

type CreateInput = z.infer<typeof createInboxInput>;
type UpdateInput = z.infer<typeof updateInboxInput>;
type ImapLogin = ServerLogin & { mailbox: string };
type StoredServer = InboxDoc['smtp'];

/** `secure` left out means TLS from the first byte on the protocol's TLS port (465 SMTP, 993 IMAP) only. */
const withSecureDefault = <T extends { port: number; secure?: boolean | undefined }>(login: T, tlsPort: number) => ({
  ...login,
  secure: login.secure ?? login.port === tlsPort,
});

const sealed = <T extends ServerLogin>({ password, ...rest }: T) => ({ ...rest, passwordSealed: sealSecret(password) });

async function verifyLogins(smtp: ServerLogin | undefined, imap: ImapLogin | null | undefined) {
  if (smtp) await verifySmtp(smtp);
  if (imap) await verifyImap(imap);
}

export async function createInbox(principal: Pick<Principal, 'workspaceId' | 'brandId'>, input: CreateInput): Promise<InboxOut> {
  const brandId = await brandForWrite(principal, input.brand_id);
  const smtp = withSecureDefault(input.smtp, 465);
  const imap = input.imap && withSecureDefault(input.imap, 993);
  if (input.verify) await verifyLogins(smtp, imap);
  const doc = await Inbox.create({
    workspaceId: principal.workspaceId,
    brandId,
    name: input.name,
    from: input.from,
    fromName: input.from_name || null,
    smtp: sealed(smtp),
    imap: imap ? sealed(imap) : null,
    dailyLimit: input.dailyLimit,
    warmupEnabled: input.warmupEnabled,
    warmupStartedAt: input.warmupEnabled ? now() : null,
  });
  return toInbox(doc.toObject() as InboxDoc);
}

export async function getInboxDoc(workspaceId: string, id: string): Promise<InboxDoc> {
  const doc = (await findOwned(Inbox, id, workspaceId)) as InboxDoc | null;
  if (!doc) throw notFound('Inbox');
  return doc;
}

/** The inboxes of the credential's brand by default; `brand` narrows to another or widens to `all`. */
export async function listInboxes(principal: Pick<Principal, 'workspaceId' | 'brandId'>, brand: string | undefined): Promise<InboxOut[]> {
  const brandId = await brandFilter(principal, brand, 'credential');
  const docs = await Inbox.find({ workspaceId: principal.workspaceId, ...(brandId && { brandId }) })
    .sort({ createdAt: 1, _id: 1 })
    .lean<InboxDoc[]>();
  return Promise.all(docs.map(toInbox));
}

/** The workspace's (or a brand's) inboxes together: today's caps of those not paused, and sends of all in the rolling 24 hours as listings count them. */
export async function inboxTotals(workspaceId: string, brandId: string | null): Promise<{ capToday: number; sent24h: number }> {
  const docs = await Inbox.find({ workspaceId, ...(brandId && { brandId }) }).lean<InboxDoc[]>();
  const sent = await Promise.all(docs.map((doc) => inboxSlotsLast24h(doc._id)));
  return {
    capToday: docs.reduce((total, doc) => total + (doc.sendingPausedAt ? 0 : capToday(doc).cap), 0),
    sent24h: sent.reduce((total, n) => total + n, 0),
  };
}

/** A PATCH's server settings laid over the stored ones; the stored password is kept unless a new one is given. */
function mergedLogin(stored: StoredServer, change: Partial<ServerLogin>, tlsPort: number): ServerLogin {
  const port = change.port ?? stored.port;
  return {
    host: change.host ?? stored.host,
    port,
    secure: change.secure ?? (change.port !== undefined ? port === tlsPort : stored.secure),
    user: change.user ?? stored.user,
    password: change.password ?? openSecret(stored.passwordSealed),
  };
}

/** New IMAP settings over the stored ones, or whole ones when there were none (400 naming each missing field). */
function mergedImap(stored: InboxDoc['imap'], change: Partial<ImapLogin>): ImapLogin {
  if (stored) return { ...mergedLogin(stored, change, 993), mailbox: change.mailbox ?? stored.mailbox };
  const missing = (['host', 'user', 'password'] as const).filter((key) => change[key] === undefined);
  if (missing.length) {
    const [first, ...rest] = missing.map((key) => ({ field: `imap.${key}`, problem: 'required when the inbox has no IMAP settings yet' }));
    throw fieldError(first!, ...rest);
  }
  return withSecureDefault({ port: 993, mailbox: 'INBOX', ...change } as ImapLogin, 993);
}

/** The change of pause state a PATCH asks for: resuming clears the guard's pause; pausing keeps an earlier pause as it was. */
function pauseChange(current: InboxDoc, paused: boolean | undefined) {
  if (paused === false) return { sendingPausedAt: null, sendingPausedReason: null };
  if (paused === true && !current.sendingPausedAt) return { sendingPausedAt: now(), sendingPausedReason: 'Paused by request' };
  return {};
}

export async function updateInbox(workspaceId: string, input: UpdateInput): Promise<InboxOut> {
  const current = await getInboxDoc(workspaceId, input.id);
  const smtp = input.smtp && mergedLogin(current.smtp, input.smtp, 465);
  const imap = input.imap && mergedImap(current.imap, input.imap);
  if (input.verify) await verifyLogins(smtp, imap);
  const warmupTurnedOn = input.warmupEnabled === true && !current.warmupEnabled;
  const set = {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.from !== undefined && { from: input.from }),
    ...(input.from_name !== undefined && { fromName: input.from_name || null }),
    ...(input.brand_id !== undefined && { brandId: await assertBrandInWorkspace(workspaceId, input.brand_id, 'brand_id') }),
    ...(smtp && { smtp: sealed(smtp) }),
    ...(input.imap !== undefined && { imap: imap ? sealed(imap) : null }),
    ...(input.dailyLimit !== undefined && { dailyLimit: input.dailyLimit }),
    ...(input.warmupEnabled !== undefined && { warmupEnabled: input.warmupEnabled }),
    // The ramp starts over each time warmup is turned on, and is forgotten when it is turned off.
    ...(warmupTurnedOn && { warmupStartedAt: now() }),
    ...(input.warmupEnabled === false && { warmupStartedAt: null }),
    ...pauseChange(current, input.paused),
  };
  const updated = await Inbox.findByIdAndUpdate(current._id, { $set: set }, { returnDocument: 'after' }).lean<InboxDoc>();
  if (!updated) throw notFound('Inbox');
  return toInbox(updated);
}

/** Deletes an inbox no active campaign sends from (409 naming those campaigns otherwise). Its figures are pruned with age. */
export async function deleteInbox(workspaceId: string, id: string): Promise<void> {
  await getInboxDoc(workspaceId, id);
  const campaigns = await activeCampaignNamesUsing(workspaceId, { inboxId: id });
  if (campaigns.length) {
    throw new AppError('conflict', `The inbox is used by active campaigns: ${campaigns.join(', ')}. Pause or archive them first`, {
      campaigns,
    });
  }
  await Inbox.deleteOne({ _id: id });
}
