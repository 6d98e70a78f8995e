import { defineConfig } from 'vitest/config';

/** `npm run test:faults -w apps/server`: crashes in the middle of imports, sends and flows (issue 22), apart from npm test. */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
