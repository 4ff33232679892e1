import { DateTime } from 'luxon';
import type { CreditKind } from './debit-rules.ts';

/** Days of spending kept: the usage report reads 30, a few more cover a time zone change. */
export const keptDays = 35;
/** Days past `keptDays` each debit clears, so a workspace that debits at least once a week keeps no older bucket. */
const clearedDays = 7;

/** A workspace-local date (`2026-11-25`) at `atMs` in `timezone`. */
export const localDate = (atMs: number, timezone: string) => DateTime.fromMillis(atMs, { zone: timezone }).toISODate()!;

/** The local date `days` before `date`. */
export const daysBefore = (date: string, days: number) => DateTime.fromISO(date, { zone: 'UTC' }).minus({ days }).toISODate()!;

/**
 * The update parts that record `amount` credits of `kind` spent on `day`
 * in the per-day buckets of the balance document, applied in the same
 * update that moves the balance so each debit lands there exactly once,
 * and that clear the buckets just past the kept days.
 */
export function daySpend(day: string, kind: CreditKind, amount: number) {
  return {
    inc: { [`spent.${day}.${kind}`]: amount },
    unset: Object.fromEntries(staleBuckets(day).map((path) => [path, ''])),
  };
}

/** The buckets a debit on `day` clears, kept for the last day asked (their date arithmetic is not free, and every debit asks). */
let cleared: { day: string; paths: string[] } | undefined;
function staleBuckets(day: string): string[] {
  if (cleared?.day !== day)
    cleared = { day, paths: Array.from({ length: clearedDays }, (_, i) => `spent.${daysBefore(day, keptDays + 1 + i)}`) };
  return cleared.paths;
}
