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
    // A journey that fails is run once more (each run makes its own user and data); the first failure still prints
    // what its pages showed (support/setup.ts), so a flaky step is visible in the log rather than hidden.
    retry: 1,
    pool: 'forks',
  },
});
