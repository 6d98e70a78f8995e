import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Sized for a machine at half this one's usual speed with the other core busy: property tests run hundreds of
    // cases (docs/operations.md, "Tests, CI and the suites").
    testTimeout: 30_000,
  },
});
