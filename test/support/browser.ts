import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser } from 'playwright-core';

/** Headless Chromium for one test file (the system's, as in production tests of the docs page). */
export function useBrowser() {
  const holder = {} as { browser: Browser };
  beforeAll(async () => {
    holder.browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(() => holder.browser?.close());
  return holder;
}
