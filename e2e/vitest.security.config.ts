import { defineConfig } from 'vitest/config';

/** `npm run test:security -w e2e`: hostile input through every field, then every page that shows it, in Chromium. */
export default defineConfig({
  test: {
    include: ['security/**/*.test.ts'],
    globalSetup: ['support/global-setup.ts'],
    setupFiles: ['support/setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
