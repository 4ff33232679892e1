import { createHash, randomBytes } from 'node:crypto';
import { insertNew } from '../../db/insert-new.ts';
import { recordLeadActivity } from '../../leads/index.ts';
import { log, logFault, outsideRequest } from '../../logger.ts';
import { Click, type ClickDoc } from './click.model.ts';
import { emitClickedEvents } from './email-events.ts';
import { countMessageEffects } from './message-effects.ts';
import { messageActivity } from './message-activity.ts';
import type { MessageDoc } from './message.model.ts';
import { findMessages } from './messages.service.ts';

/** A click on a tracked link (/c/<token>): the message record and the original address it stands for. */
export interface TrackedClick {
  recordId: string;
  url: string;
  at: Date;
}

/** A link's short name within its message: a hash of the address (addresses may be long). */
const linkKey = (url: string) => createHash('sha256').update(url).digest('base64url').slice(0, 22);
/** The id of a link's first click in its message. */
const firstClickId = (recordId: string, url: string) => `${recordId}:${linkKey(url)}`;
/** What tells a later click of a link apart: this process's random prefix and a count, unique across processes. */
const processPrefix = randomBytes(6).toString('base64url');
let laterClicks = 0;
const laterClickId = () => `${processPrefix}${(laterClicks++).toString(36)}`;

/**
 * Records clicks, each (message, link, time), with a few writes for all of
 * them; the first click of a link in a message is counted (the statistics
 * buckets and the campaign's step counters: unique clicks) and announced
 * (`outreach.email.clicked`) once. The event is stored before the first
 * click is (its id comes from the message and the address), so a process
 * dying between the two leaves the next click of that link to store it,
 * finding the event there. Clicks of a message that is not ours (gone) are
 * passed over. A busy link costs one insert per group: the messages and the
 * first clicks already seen are remembered (what is read of a sent message
 * does not change; a first click stored stays stored). This is where a
 * recorded click's other effects belong: a first click is a line in its
 * lead's activity.
 */
export async function recordClicks(clicks: TrackedClick[]): Promise<void> {
  const messages = await messagesOf([...new Set(clicks.map((click) => click.recordId))]);
  const known = clicks.filter((click) => messages.has(click.recordId));
  if (!known.length) return;
  const doc = (click: TrackedClick, _id: string, first: boolean): ClickDoc => {
    const record = messages.get(click.recordId)!;
    return {
      _id,
      workspaceId: record.workspaceId,
      messageRecordId: record._id,
      campaignId: record.campaignId ?? null,
      leadId: record.leadId ?? null,
      url: click.url,
      first,
      at: click.at,
    };
  };
  // Each click's link id, hashed once; the first click of each link in this batch, unless one was stored before.
  const firstIds = new Map(known.map((click) => [click, firstClickId(click.recordId, click.url)]));
  const candidates = new Map<string, TrackedClick>();
  for (const [click, id] of firstIds) if (!candidates.has(id) && !storedFirsts.has(id)) candidates.set(id, click);
  const before = candidates.size
    ? await Click.find({ _id: { $in: [...candidates.keys()] } }, { _id: 1 }).lean<Array<{ _id: string }>>()
    : [];
  for (const { _id } of before) {
    candidates.delete(_id);
    remember(storedFirsts, _id, true);
  }
  await emitClickedEvents(
    [...candidates.values()].map((click) => ({ record: messages.get(click.recordId)!, url: click.url, at: click.at })),
  );
  const stored = await insertNew(
    Click,
    [...candidates].map(([id, click]) => doc(click, id, true)),
  );
  for (const id of candidates.keys()) remember(storedFirsts, id, true);
  const firsts = new Set([...stored].map((id) => candidates.get(id)!));
  // Every other click (a later one, or one whose link another process stored first) under an id of its own.
  await insertNew(
    Click,
    known.filter((click) => !firsts.has(click)).map((click) => doc(click, `${firstIds.get(click)}:${laterClickId()}`, false)),
  );
  await countMessageEffects([...firsts].map((click) => ({ record: messages.get(click.recordId)!, effect: 'clicked' as const })));
  await recordLeadActivity(
    [...firsts]
      .filter((click) => messages.get(click.recordId)!.leadId)
      .map((click) =>
        messageActivity(
          messages.get(click.recordId)!,
          'outreach.email.clicked',
          click.at,
          { url: click.url },
          `outreach.email.clicked:${linkKey(click.url)}`,
        ),
      ),
  );
}

/** What a click's record and counts need of its message. */
type ClickedMessage = Pick<
  MessageDoc,
  '_id' | 'workspaceId' | 'brandId' | 'inboxId' | 'campaignId' | 'leadId' | 'step' | 'variant' | 'messageId'
>;

/** Recently clicked messages, and first clicks known to be stored: bounded, the oldest forgotten first. */
const knownMessages = new Map<string, ClickedMessage>();
const storedFirsts = new Map<string, true>();
const remembered = 20_000;
function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > remembered) cache.delete(cache.keys().next().value!);
}

/** The messages of these records that exist: remembered ones, and the rest read with one query. */
async function messagesOf(recordIds: string[]): Promise<Map<string, ClickedMessage>> {
  const found = new Map<string, ClickedMessage>();
  for (const id of recordIds) if (knownMessages.has(id)) found.set(id, knownMessages.get(id)!);
  const missing = recordIds.filter((id) => !found.has(id));
  for (const [id, record] of missing.length ? await findMessages(missing) : []) {
    // A message clicked went out: what is kept of it does not change any more.
    const kept: ClickedMessage = {
      _id: record._id,
      workspaceId: record.workspaceId,
      brandId: record.brandId,
      inboxId: record.inboxId,
      campaignId: record.campaignId ?? null,
      leadId: record.leadId ?? null,
      step: record.step ?? null,
      variant: record.variant ?? null,
      messageId: record.messageId,
    };
    if (record.status === 'sent') remember(knownMessages, id, kept);
    found.set(id, kept);
  }
  return found;
}

/** Clicks waiting beyond which a redirect waits for its click to be recorded (the store falling behind): memory stays bounded. */
const maxBacklog = 10_000;
/** How long a quiet link's click waits for others before its group is written (a busy one's group follows the last at once). */
const gatherMs = 50;
/**
 * Clicks recorded with one group of writes, at most: the clicks that arrived while the last group was written go at
 * once, so under load a group holds what came in meanwhile (a fixed wait between groups capped the store at ~5,000 a second).
 */
const maxGroup = 5_000;
const waiting: Array<{ click: TrackedClick; recorded: () => void }> = [];
let underWay = false;

/**
 * Records a click with the others that arrive within 50 ms and while a
 * group is being written (recordClicks: a busy link costs the store one
 * insert per group, not per click), so the redirect need not wait for the
 * store. Resolves at once, unless the backlog is full: then once this
 * click is recorded. Failures are logged (the visitor is redirected
 * whatever happens).
 */
export function recordClickSoon(click: TrackedClick): Promise<void> {
  const recorded = new Promise<void>((resolve) => waiting.push({ click, recorded: resolve }));
  if (!underWay && waiting.length === 1) setTimeout(flushOutsideRequest, gatherMs);
  return waiting.length > maxBacklog ? recorded : Promise.resolve();
}

/** A group's writes belong to no request (the one that queued its first click has been answered). */
const flushOutsideRequest = () => outsideRequest(() => void flush());

async function flush(): Promise<void> {
  const group = waiting.splice(0, maxGroup);
  underWay = true;
  try {
    await recordClicks(group.map(({ click }) => click));
  } catch (error) {
    log.warn('clicks could not be recorded', { clicks: group.length });
    logFault(error);
  } finally {
    for (const { recorded } of group) recorded();
    underWay = false;
    if (waiting.length) setImmediate(flushOutsideRequest);
  }
}

/** The clicks of erased leads (a click's address may carry the person's own): deleted, and how many. */
export async function eraseClicksOf(workspaceId: string, leadIds: string[]): Promise<number> {
  if (!leadIds.length) return 0;
  return (await Click.deleteMany({ workspaceId, leadId: { $in: leadIds } })).deletedCount;
}
