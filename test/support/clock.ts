import { afterAll, afterEach } from 'vitest';
import { setTimeSource, useSystemClock } from '../../src/clock.ts';

/**
 * The service's clock for one test file, moved forward instead of slept
 * through: it runs with real time, plus whatever the test has advanced.
 */
export function useTestClock() {
  let offsetMs = 0;
  setTimeSource(() => Date.now() + offsetMs);
  afterEach(() => {
    offsetMs = 0;
  });
  afterAll(useSystemClock);
  return {
    advance(ms: number) {
      offsetMs += ms;
    },
    /** Jumps to `at` (then runs on from there). */
    set(at: Date | number) {
      offsetMs = new Date(at).getTime() - Date.now();
    },
  };
}
