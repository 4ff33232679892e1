import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS entry for graphql-yoga; make the project's own imports get the same copy,
    // or GraphQLError instanceof checks fail across the two.
    alias: { graphql: createRequire(import.meta.url).resolve('graphql') },
  },
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
