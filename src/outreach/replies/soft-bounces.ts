import { nowMs } from '../../clock.ts';
import { incrementCounter } from '../../db/counter.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { defineRetentionRule } from '../../db/retention.ts';
import { utcDay } from '../counters/outreach-stats.service.ts';
import { SoftBounceDay, SoftBounceSeen } from './reply.model.ts';

const dayMs = 24 * 3_600_000;
/** The rule: this many soft bounces of one address, on at least two UTC days, within the window, make it undeliverable. */
export const softBounceRule = { bounces: 3, days: 2, windowDays: 14 } as const;

const dayKey = (workspaceId: string, email: string, day: string) => `${workspaceId}:${email.toLowerCase()}:${day}`;

/**
 * Counts a soft bounce (once per reply, whoever asks again) and answers
 * whether the address has now met the rule. Counters by primary key: the
 * window is read as one document per day.
 */
export async function countSoftBounce(workspaceId: string, email: string, replyId: string, at = nowMs()): Promise<boolean> {
  const keep = new Date(at + (softBounceRule.windowDays + 1) * dayMs);
  try {
    await SoftBounceSeen.create({ _id: replyId, expiresAt: keep });
    await incrementCounter(SoftBounceDay, dayKey(workspaceId, email, utcDay(at)), { count: 1 }, { expiresAt: keep });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  const days = Array.from({ length: softBounceRule.windowDays }, (_, back) => utcDay(at - back * dayMs));
  const counts = (
    await Promise.all(days.map((day) => SoftBounceDay.findById(dayKey(workspaceId, email, day)).lean<{ count: number }>()))
  ).map((doc) => doc?.count ?? 0);
  return counts.reduce((sum, n) => sum + n, 0) >= softBounceRule.bounces && counts.filter((n) => n > 0).length >= softBounceRule.days;
}

/** Drops soft-bounce counts past the window. */
export async function pruneSoftBounces(at = nowMs()): Promise<void> {
  await SoftBounceDay.deleteMany({ expiresAt: { $lt: new Date(at) } });
  await SoftBounceSeen.deleteMany({ expiresAt: { $lt: new Date(at) } });
}

export const softBounceRetention = defineRetentionRule({
  records: 'soft-bounce counts',
  everyMs: 60 * 60_000,
  prune: () => pruneSoftBounces(),
});
