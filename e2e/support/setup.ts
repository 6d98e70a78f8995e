import { afterEach } from 'vitest';
import { describeViolations, flushAccessibility, takeViolations } from './accessibility.ts';
import { describeOpenPages } from './browser.ts';

// A failed journey prints what its pages showed, so a failure on a CI machine names its cause.
afterEach(async (context) => {
  if (context.task.result?.state === 'fail') {
    // The error's first line too, beside the pages (the reporter prints the whole error later, apart from them).
    const errors = (context.task.result.errors ?? []).map((error) => error.message.split('\n')[0]).join('\n');
    console.error(
      `The journey failed with: ${errors}\nWhat the open pages showed:\n${await describeOpenPages()}`,
    );
  }
});

// Every journey fails on a serious or critical axe violation in any state its pages reached.
afterEach(async () => {
  await flushAccessibility();
  const violations = takeViolations();
  if (violations.length > 0) throw new Error(describeViolations(violations));
});
