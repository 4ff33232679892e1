import { nowMs } from '../../clock.ts';
import { inboxSlotsLast24h } from '../counters/send-slots.ts';
import { inboxScope, last24Hours, totalOverDays } from '../counters/outreach-stats.service.ts';

const dayMs = 24 * 3_600_000;

/** Warmup's ramp: the cap on the day warmup is turned on, and what each further day adds. */
export const warmupStartCap = 10;
export const warmupStepPerDay = 5;

interface CapSettings {
  dailyLimit: number;
  warmupEnabled: boolean;
  warmupStartedAt?: Date | null;
}

/**
 * Today's cap: dailyLimit, or while warming up 10 on the day warmup was
 * turned on plus 5 for each whole day since, up to dailyLimit.
 */
export function capToday(inbox: CapSettings, at = nowMs()): { cap: number; warmingUp: boolean } {
  if (!inbox.warmupEnabled) return { cap: inbox.dailyLimit, warmingUp: false };
  const days = Math.max(0, Math.floor((at - (inbox.warmupStartedAt?.getTime() ?? at)) / dayMs));
  const ramp = warmupStartCap + warmupStepPerDay * days;
  return { cap: Math.min(ramp, inbox.dailyLimit), warmingUp: ramp < inbox.dailyLimit };
}

// Capped at 1: a bounce can arrive for a send made before the window (a 24-hour rate over a quiet hour, say).
const ratio = (part: number, whole: number) => (whole > 0 ? Math.min(1, part / whole) : 0);

/** Weights of the health score: a 10% bounce rate alone takes it to 0, a 10% failure rate alone costs 20 points. */
const bounceWeight = 1000;
const failureWeight = 200;

/**
 * Health, 0–100: 0 while sending is paused; otherwise
 * 100 − 1000 × bounceRate14d − 200 × failureRate14d, rounded and clamped,
 * where failureRate14d is failed14d / (sent14d + failed14d). Bounces weigh
 * most because mailbox providers judge a sender by them (the bounce guard
 * pauses at 5% by default, where health is 50); failed sends (the server
 * refused the message) point at a login or configuration problem.
 */
export function healthScore(figures: { paused: boolean; sent14d: number; failed14d: number; bounced14d: number }): number {
  if (figures.paused) return 0;
  const score =
    100 -
    bounceWeight * ratio(figures.bounced14d, figures.sent14d) -
    failureWeight * ratio(figures.failed14d, figures.sent14d + figures.failed14d);
  return Math.min(100, Math.max(0, Math.round(score)));
}

/** The rolling 24 hours as the bounce guard reads them: sends as the cap's slots count them, bounces from the stats. */
export async function last24hFigures(inboxId: string): Promise<{ sent24h: number; bounced24h: number; bounceRate24h: number }> {
  const [sent24h, counts] = await Promise.all([inboxSlotsLast24h(inboxId), last24Hours(inboxScope(inboxId))]);
  return { sent24h, bounced24h: counts.bounced, bounceRate24h: ratio(counts.bounced, sent24h) };
}

/** Every figure of an inbox's listing, computed from what was really sent (send slots and stats buckets). */
export async function inboxFigures(inbox: CapSettings & { _id: string; sendingPausedAt?: Date | null }) {
  const [day, fortnight] = await Promise.all([last24hFigures(inbox._id), totalOverDays(inboxScope(inbox._id), 14)]);
  const { cap, warmingUp } = capToday(inbox);
  return {
    sent24h: day.sent24h,
    cap,
    warmingUp,
    sent14d: fortnight.sent,
    failed14d: fortnight.failed,
    opened14d: fortnight.opened,
    bounced14d: fortnight.bounced,
    bounceRate14d: ratio(fortnight.bounced, fortnight.sent),
    bounceRate24h: day.bounceRate24h,
    health: healthScore({
      paused: Boolean(inbox.sendingPausedAt),
      sent14d: fortnight.sent,
      failed14d: fortnight.failed,
      bounced14d: fortnight.bounced,
    }),
  };
}
