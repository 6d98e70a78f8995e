import { defineConfig } from 'vitest/config';

/** `npm run test:unit -w e2e`: the journeys' own helpers (support/*.test.ts), without a server or a browser. */
export default defineConfig({
  test: {
    include: ['support/**/*.test.ts'],
  },
});
