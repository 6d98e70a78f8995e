import { defineConfig } from 'vitest/config';

/** `npm run test:security -w apps/server`: SSRF, isolation, fuzz and header checks (issue 22), apart from npm test. */
export default defineConfig({
  test: {
    include: ['test/security/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
