import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['journeys/**/*.journey.ts'],
    globalSetup: ['support/global-setup.ts'],
    setupFiles: ['support/setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // expect.poll waits as long as a Playwright action does (support/browser.ts sets 15 s). Vitest's default, 1 s,
    // failed the flows journey when the email preview's request took longer on a busy machine.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    // One server for the run (support/global-setup.ts), one Chromium per file, one file at a time: the journeys keep
    // both cores busy (the browser drawing, axe, the server), so two at a time took as long (873 s against 840 s) and
    // only squeezed each journey. Each journey signs up accounts of its own, so E2E_WORKERS=2 stays possible.
    fileParallelism: true,
    maxWorkers: Number(process.env.E2E_WORKERS ?? 1),
    minWorkers: 1,
    // No retry: a journey that passes only on its second try hides a defect. The last one found was the emails
    // journey waiting for a preview frame's text to be visible (Chromium need not lay out a frame below the fold);
    // the journeys now read a frame's document instead (docs/operations.md, "Tests, CI and the suites").
    retry: 0,
    pool: 'forks',
  },
});
