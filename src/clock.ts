/**
 * The one clock services and jobs read, so that tests of expiry, windows
 * and schedules move time instead of sleeping (test/support/clock.ts).
 */
type TimeSource = () => number;

let source: TimeSource = Date.now;

/** Milliseconds since the epoch, by the clock in force. */
export const nowMs = (): number => source();
export const now = (): Date => new Date(source());

/** Replaces the time source; `useSystemClock()` puts the real one back. */
export const setTimeSource = (next: TimeSource) => {
  source = next;
};
export const useSystemClock = () => {
  source = Date.now;
};
