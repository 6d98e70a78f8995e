import { afterEach } from 'vitest';
import { describeViolations, flushAccessibility, takeViolations } from './accessibility.ts';

// Every journey fails on a serious or critical axe violation in any state its pages reached.
afterEach(async () => {
  await flushAccessibility();
  const violations = takeViolations();
  if (violations.length > 0) throw new Error(describeViolations(violations));
});
