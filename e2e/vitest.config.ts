import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['journeys/**/*.journey.ts'],
    globalSetup: ['support/global-setup.ts'],
    setupFiles: ['support/setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // One server for the run (support/global-setup.ts), one Chromium per file, one file at a time: the journeys keep
    // both cores busy (the browser drawing, axe, the server), so two at a time took as long (873 s against 840 s) and
    // only squeezed each journey. Each journey signs up accounts of its own, so E2E_WORKERS=2 stays possible.
    fileParallelism: true,
    maxWorkers: Number(process.env.E2E_WORKERS ?? 1),
    minWorkers: 1,
    // No retry: a flaky journey fails the run (support/setup.ts prints what its pages showed).
    retry: 0,
    pool: 'forks',
  },
});
