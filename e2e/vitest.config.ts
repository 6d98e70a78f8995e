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
    // One retry, for now: a clean-clone run without it failed on the emails journey's live preview (its text not
    // shown within 15 s), after one that passed. The retry goes once three clean-clone runs in a row pass without it
    // (docs/operations.md, "Tests, CI and the suites"); support/setup.ts prints what a failed first try's pages showed.
    retry: 1,
    pool: 'forks',
  },
});
