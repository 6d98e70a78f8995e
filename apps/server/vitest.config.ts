import { defineConfig } from 'vitest/config';
import { workerSlots } from './test/worker-slots.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // The security and fault suites have their own commands (npm run test:security / test:faults).
    exclude: ['test/security/**', 'test/faults/**', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    // Each file starts on an empty job queue (test/fresh-job-queue.ts).
    setupFiles: ['test/fresh-job-queue.ts', 'test/timeout-report.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files run two at a time, each slot on its own database (test/global-setup.ts).
    maxWorkers: workerSlots,
    minWorkers: 1,
    // A worker's files share its loaded modules instead of loading the whole server again for each file (collection
    // took 220 s of the run; 16 s this way). Each file still builds its own app, pool and worker (createTestContext),
    // and no test replaces a module or an environment variable.
    isolate: false,
  },
});
