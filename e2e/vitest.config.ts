import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['journeys/**/*.journey.ts'],
    globalSetup: ['support/global-setup.ts'],
    setupFiles: ['support/setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // One server for the run (support/global-setup.ts), one Chromium per file, two files at a time: a journey keeps
    // about one core busy (the browser drawing, axe, the server), so two keep the machine's two busy. Journeys stay
    // independent: each signs up an account of its own. E2E_WORKERS=1 runs them one after another.
    fileParallelism: true,
    maxWorkers: Number(process.env.E2E_WORKERS ?? 2),
    minWorkers: 1,
    // No retry: a flaky journey fails the run (support/setup.ts prints what its pages showed).
    retry: 0,
    pool: 'forks',
  },
});
