import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file boots its own API server against its own database; two at a time fits a 2-core machine.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
