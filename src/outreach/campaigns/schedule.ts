import { DateTime } from 'luxon';

export interface SendingWindow {
  timezone: string;
  /** ISO weekdays, 1 (Monday) to 7. */
  days: number[];
  startHour: number;
  /** Exclusive. */
  endHour: number;
}

const local = (window: SendingWindow, ms: number) => DateTime.fromMillis(ms, { zone: window.timezone });

/** True when `ms` falls inside the window, in its time zone. */
export function inWindow(window: SendingWindow, ms: number): boolean {
  const at = local(window, ms);
  return window.days.includes(at.weekday) && at.hour >= window.startHour && at.hour < window.endHour;
}

/** The first moment at or after `fromMs` inside the window. */
export function nextWindowStart(window: SendingWindow, fromMs: number): number {
  if (inWindow(window, fromMs)) return fromMs;
  let day = local(window, fromMs).startOf('day');
  for (let i = 0; i < 8; i++, day = day.plus({ days: 1 })) {
    if (!window.days.includes(day.weekday)) continue;
    const opens = day.set({ hour: window.startHour });
    const closes = window.endHour === 24 ? day.plus({ days: 1 }) : day.set({ hour: window.endHour });
    if (closes.toMillis() <= fromMs) continue;
    return Math.max(opens.toMillis(), fromMs);
  }
  throw new Error('a sending window with no day in it'); // schedules always name at least one day
}

/** The calendar day of `ms` in the window's time zone (a campaign's daily limit counts by it). */
export const localDay = (window: SendingWindow, ms: number) => local(window, ms).toISODate()!;
