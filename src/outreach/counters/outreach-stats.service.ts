import { DateTime } from 'luxon';
import { nowMs } from '../../clock.ts';
import { appliedSet, notYetApplied, type AppliedMark } from '../../db/counter.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { defineRetentionRule } from '../../db/retention.ts';
import { OutreachStats, type OutreachStatsDoc } from './outreach-stats.model.ts';

export const outreachEvents = ['sent', 'failed', 'opened', 'clicked', 'bounced', 'replied', 'unsubscribed', 'complained'] as const;
export type OutreachEvent = (typeof outreachEvents)[number];
export type OutreachCounts = Record<OutreachEvent, number>;

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
/**
 * Hourly buckets are kept 15 days: 24-hour figures, and the 14 local days of
 * the statistics report (the oldest starts at most 14 days back in any time
 * zone). Daily ones (UTC days) 60 days, for inboxes' 14-day figures.
 */
const keepHoursMs = 15 * dayMs;
const keepDaysMs = 60 * dayMs;

export const hourIndex = (ms: number) => Math.floor(ms / hourMs);
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export const inboxScope = (id: string) => `inbox:${id}`;
export const campaignScope = (id: string) => `campaign:${id}`;
export const workspaceScope = (id: string) => `workspace:${id}`;
export const brandScope = (id: string) => `brand:${id}`;

/** The scopes an event about a message counts in: its inbox, brand and workspace, and its campaign if it has one. */
export const eventScopes = (about: { workspaceId: string; brandId: string; inboxId: string; campaignId?: string | null }) => [
  inboxScope(about.inboxId),
  brandScope(about.brandId),
  workspaceScope(about.workspaceId),
  ...(about.campaignId ? [campaignScope(about.campaignId)] : []),
];

const zero = (): OutreachCounts => ({ sent: 0, failed: 0, opened: 0, clicked: 0, bounced: 0, replied: 0, unsubscribed: 0, complained: 0 });

/** Events to count in each of some scopes. */
export interface ScopedEvents {
  scopes: string[];
  events: OutreachEvent[];
}

/**
 * Counts events for their scopes, each in its hour and its day: one write of
 * every bucket's atomic increments (created when missing), however many
 * events and scopes. With `mark` (the sending engine's batches), each
 * bucket's increment goes with the mark, only into a bucket the batch has
 * not reached yet, so a batch applied again after a crash counts once.
 */
export async function recordOutreachEvents(entries: ScopedEvents[], at = nowMs(), mark?: AppliedMark): Promise<void> {
  const buckets = new Map<string, { fields: Record<string, unknown>; inc: Record<string, number> }>();
  // The periods once for all entries (the sending engine records a chunk's messages at once, each in four scopes).
  const periods = [
    { kind: 'h', period: String(hourIndex(at)), keepMs: keepHoursMs },
    { kind: 'd', period: utcDay(at), keepMs: keepDaysMs },
  ];
  for (const { scopes, events } of entries) {
    for (const scope of scopes) {
      for (const { kind, period, keepMs } of periods) {
        const _id = `${scope}:${kind}:${period}`;
        let bucket = buckets.get(_id);
        if (!bucket) buckets.set(_id, (bucket = { fields: { scope, period, expiresAt: new Date(at + keepMs) }, inc: {} }));
        for (const event of events) bucket.inc[event] = (bucket.inc[event] ?? 0) + 1;
      }
    }
  }
  const ids = [...buckets.keys()].filter((_id) => Object.keys(buckets.get(_id)!.inc).length);
  if (!ids.length) return;
  const filter = (_id: string) => ({ _id, ...(mark && notYetApplied(mark)) });
  const update = (_id: string) => ({ $inc: buckets.get(_id)!.inc, ...(mark && { $set: appliedSet(mark) }) });
  try {
    await OutreachStats.bulkWrite(
      ids.map((_id) => ({
        updateOne: { filter: filter(_id), update: { ...update(_id), $setOnInsert: buckets.get(_id)!.fields }, upsert: true },
      })),
      { ordered: false },
    );
  } catch (error) {
    // A bucket's first two increments racing on MongoDB: the one whose insert lost is applied again as a plain
    // increment. With a mark, a bucket the batch reached before also lands here (the filter missed it), and is left.
    if (!isDuplicateKey(error)) throw error;
    const lost = ((error as { writeErrors?: Array<{ index: number }> }).writeErrors ?? []).map(({ index }) => ids[index]!);
    await OutreachStats.bulkWrite(lost.map((_id) => ({ updateOne: { filter: filter(_id), update: update(_id) } })));
  }
}

/** Counts events for each scope, in its hour and its day. */
export const recordOutreachEvent = (scopes: string[], events: OutreachEvent | OutreachEvent[], at = nowMs()) =>
  recordOutreachEvents([{ scopes, events: [events].flat() }], at);

const sum = (docs: Array<OutreachStatsDoc | null>) => {
  const total = zero();
  // A bucket written before a counter existed has no field for it.
  for (const doc of docs) if (doc) for (const event of outreachEvents) total[event] += doc[event] ?? 0;
  return total;
};

/** A scope's counts over the last 24 hours: the current hour and the 23 before it. */
export async function last24Hours(scope: string, at = nowMs()): Promise<OutreachCounts> {
  const hours = Array.from({ length: 24 }, (_, back) => hourIndex(at) - back);
  return sum(await Promise.all(hours.map((hour) => OutreachStats.findById(`${scope}:h:${hour}`).lean<OutreachStatsDoc>())));
}

/** A scope's counts for each of the last `days` UTC days, oldest first (today included). */
export async function dailyCounts(scope: string, days: number, at = nowMs()): Promise<Array<{ day: string } & OutreachCounts>> {
  const dayKeys = Array.from({ length: days }, (_, back) => utcDay(at - (days - 1 - back) * dayMs));
  const docs = await Promise.all(dayKeys.map((day) => OutreachStats.findById(`${scope}:d:${day}`).lean<OutreachStatsDoc>()));
  return dayKeys.map((day, index) => ({ day, ...sum([docs[index] ?? null]) }));
}

/** Totals of the last `days` UTC days. */
export async function totalOverDays(scope: string, days: number, at = nowMs()): Promise<OutreachCounts> {
  const perDay = await dailyCounts(scope, days, at);
  const total = zero();
  for (const day of perDay) for (const event of outreachEvents) total[event] += day[event];
  return total;
}

/**
 * A scope's counts for each of the last `days` calendar days in `timezone`,
 * oldest first (today included). A local day is the sum of the hourly
 * buckets that start in it: 24, or 23 and 25 across a DST change, all read
 * with one query by primary key (hours still to come are not read); a local day
 * that is exactly a UTC day is its daily bucket instead. Exact for
 * whole-hour offsets; in a zone offset by a half or quarter hour (India,
 * Nepal, parts of Australia) each hour's events count in the local day the
 * hour starts in.
 */
export async function localDailyCounts(
  scope: string,
  timezone: string,
  days: number,
  at = nowMs(),
): Promise<Array<{ date: string } & OutreachCounts>> {
  const today = DateTime.fromMillis(at, { zone: timezone }).startOf('day');
  const current = hourIndex(at);
  const spans = Array.from({ length: days }, (_, index) => {
    const start = today.minus({ days: days - 1 - index }).startOf('day');
    const startMs = start.toMillis();
    const endMs = start.plus({ days: 1 }).startOf('day').toMillis();
    const date = start.toISODate()!;
    // A local day that is a UTC day (UTC itself, London in winter) is its daily bucket: one read instead of 24.
    if (startMs % dayMs === 0 && endMs - startMs === dayMs) return { date, ids: [`${scope}:d:${utcDay(startMs)}`] };
    const first = Math.ceil(startMs / hourMs);
    const end = Math.min(current + 1, Math.ceil(endMs / hourMs));
    return { date, ids: Array.from({ length: Math.max(0, end - first) }, (_, n) => `${scope}:h:${first + n}`) };
  });
  const found = await OutreachStats.find({ _id: { $in: spans.flatMap(({ ids }) => ids) } }).lean<OutreachStatsDoc[]>();
  const byId = new Map(found.map((doc) => [doc._id, doc]));
  return spans.map(({ date, ids }) => ({ date, ...sum(ids.map((id) => byId.get(id) ?? null)) }));
}

/** Drops buckets past their keeping time. */
export async function pruneOutreachStats(at = nowMs()): Promise<number> {
  return (await OutreachStats.deleteMany({ expiresAt: { $lt: new Date(at) } })).deletedCount;
}

export const outreachStatsRetention = defineRetentionRule({
  records: 'outreach statistics buckets',
  everyMs: 60 * 60_000,
  prune: () => pruneOutreachStats(),
});
