/**
 * CPU cost of advance alone: 100,000 runs through the flow-100k shape (entered segment → has tag → add tag →
 * wait 0 → send), two calls per run (one stops at the filter, one with its answer); then 10,000 weekday waits.
 * Run: npm run bench.
 */
import { encodeInputFields } from '@herald/contracts';
import { advance, toFlowDefinition, type FlowRun } from '../src/index.ts';

const flow = toFlowDefinition({
  id: 1,
  version: 1,
  steps: [
    { id: 1, operationKey: '/entered-segment', inputFields: encodeInputFields({ segment: { id: 1 } }) },
    { id: 2, operationKey: '/has-tag', inputFields: encodeInputFields({ tag: 'vip' }) },
    { id: 3, operationKey: '/add-tag', inputFields: encodeInputFields({ tag: 'x' }) },
    {
      id: 4,
      operationKey: '/delay-v2',
      inputFields: encodeInputFields({ wait: { mode: 'duration', amount: 0, unit: 'minutes' } }),
    },
    { id: 5, operationKey: '/send', inputFields: encodeInputFields({ email: { id: 1 } }) },
  ],
  links: [
    { source: 1, target: 2, condition: null },
    { source: 2, target: 3, condition: 'yes' },
    { source: 2, target: 3, condition: 'no' },
    { source: 3, target: 4, condition: null },
    { source: 4, target: 5, condition: null },
  ],
});

const now = new Date();
for (const round of [1, 2, 3]) {
  const started = performance.now();
  let effects = 0;
  for (let id = 1; id <= 100_000; id += 1) {
    const run: FlowRun = {
      id,
      flowId: 1,
      personId: id,
      stepId: 1,
      status: 'active',
      wakeAt: null,
      seq: 0,
      lastError: null,
    };
    const first = advance(flow, run, { timeZone: 'Europe/Berlin' }, now);
    const second = advance(flow, first.run, { timeZone: 'Europe/Berlin', facts: { 2: id % 2 === 0 } }, now);
    if (second.run.status !== 'done') throw new Error(`run ${id} ended ${second.run.status}`);
    effects += first.effects.length + second.effects.length;
  }
  console.log(
    `advance-100k round ${round}: ${(performance.now() - started).toFixed(0)} ms, ${effects} effects`,
  );
}

// Weekday waits (the costliest step to compute): 10,000 runs starting "wait until Monday 09:00–10:00" in two zones.
const weekdayFlow = toFlowDefinition({
  id: 2,
  version: 1,
  steps: [
    { id: 1, operationKey: '/event', inputFields: encodeInputFields({ name: 'signed_up' }) },
    {
      id: 2,
      operationKey: '/delay-v2',
      inputFields: encodeInputFields({ wait: { mode: 'weekday', days: [1], from: '09:00', to: '10:00' } }),
    },
    { id: 3, operationKey: '/send', inputFields: encodeInputFields({ email: { id: 1 } }) },
  ],
  links: [
    { source: 1, target: 2, condition: null },
    { source: 2, target: 3, condition: null },
  ],
});
for (const round of [1, 2]) {
  const started = performance.now();
  for (let id = 1; id <= 10_000; id += 1) {
    const run: FlowRun = {
      id,
      flowId: 2,
      personId: id,
      stepId: 1,
      status: 'active',
      wakeAt: null,
      seq: 0,
      lastError: null,
    };
    const result = advance(
      weekdayFlow,
      run,
      { timeZone: id % 2 ? 'Europe/Berlin' : 'America/New_York' },
      new Date(now.getTime() + id * 1000),
    );
    if (result.run.status !== 'waiting') throw new Error(`run ${id} is ${result.run.status}`);
  }
  console.log(`advance weekday-10k round ${round}: ${(performance.now() - started).toFixed(0)} ms`);
}
