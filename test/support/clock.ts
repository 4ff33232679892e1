import { afterAll, afterEach } from 'vitest';
import { setTimeSource, useSystemClock } from '../../src/clock.ts';

/**
 * The service's clock for one test file, moved forward instead of slept
 * through: it runs with real time, plus whatever the test has advanced.
 */
export function useTestClock() {
  let offsetMs = 0;
  let frozenAt: number | null = null;
  setTimeSource(() => frozenAt ?? Date.now() + offsetMs);
  afterEach(() => {
    offsetMs = 0;
    frozenAt = null;
  });
  afterAll(useSystemClock);
  return {
    advance(ms: number) {
      if (frozenAt !== null) frozenAt += ms;
      else offsetMs += ms;
    },
    /** Jumps to `at` (then runs on from there, unless frozen). */
    set(at: Date | number) {
      if (frozenAt !== null) frozenAt = new Date(at).getTime();
      else offsetMs = new Date(at).getTime() - Date.now();
    },
    /** Stops the clock where it stands, for the rest of the test: only `advance` and `set` move it. */
    freeze() {
      frozenAt = Date.now() + offsetMs;
    },
  };
}
