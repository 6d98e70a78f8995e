import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['journeys/**/*.journey.ts'],
    globalSetup: ['support/global-setup.ts'],
    setupFiles: ['support/setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // One server, one Chromium per file, files one after another: journeys stay independent and steady.
    fileParallelism: false,
    // No retry: a journey that fails once is a failure, so a flaky step is fixed rather than hidden
    // (docs/operations.md, "Tests, CI and the suites"); support/setup.ts prints what its pages showed.
    retry: 0,
    pool: 'forks',
  },
});
