import fs from 'node:fs';
import { defineConfig } from 'vitest/config';

/** The suite's files (test/faults/*.test.ts): each gets a worker, so they all run side by side. */
const faultFiles = fs
  .readdirSync(new URL('./test/faults/', import.meta.url))
  .filter((name) => name.endsWith('.test.ts')).length;

/** `npm run test:faults -w apps/server`: crashes in the middle of imports, sends and flows (issue 22), apart from npm test. */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    // Every file at once, each on a database of its own (global-setup.ts makes one for each worker) with its own
    // Herald process, port, SMTP sink and data directory (the PostgreSQL restart has a PostgreSQL of its own). The
    // suite mostly waits on kills, restarts and backoff: one file at a time left 79% of the two cores idle (186 s),
    // two at a time 62% (104 s).
    maxWorkers: faultFiles,
    minWorkers: 1,
    pool: 'forks',
  },
});
