import { describe, expect, it } from 'vitest';
import { until } from './until.ts';

describe('until', () => {
  it('resolves with the first truthy value, asking again after a falsy one or an exception', async () => {
    let asked = 0;
    const value = await until(
      async () => {
        asked += 1;
        if (asked === 1) throw new Error('not ready');
        return asked === 2 ? 0 : { asked };
      },
      { timeout: 5_000, interval: 1 },
    );
    expect(value).toEqual({ asked: 3 });
  });

  it('answers at once when the condition already holds', async () => {
    const started = Date.now();
    expect(await until(() => 'yes', { timeout: 5_000, interval: 1_000 })).toBe('yes');
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('throws after the timeout, naming the message and the last value seen', async () => {
    let n = 0;
    const started = Date.now();
    await expect(
      until(() => ++n < 0, { timeout: 200, interval: 20, message: 'the row is written' }),
    ).rejects.toThrow(/^the row is written: not within 200 ms; the last value was false$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
    expect(n).toBeGreaterThan(2);
  });

  it('names the last exception, and asks a message function once, at the timeout', async () => {
    let described = 0;
    const error = await until(
      () => {
        throw new Error('connection refused');
      },
      { timeout: 50, interval: 10, message: async () => `state ${++described}` },
    ).catch((e: unknown) => e as Error);
    expect(error.message).toBe('state 1: not within 50 ms; the last attempt threw Error: connection refused');
    expect((error.cause as Error).message).toBe('connection refused');
    expect(described).toBe(1);
  });

  it('asks at least once even with no time at all', async () => {
    expect(await until(() => [1], { timeout: 0 })).toEqual([1]);
    await expect(until(() => null, { timeout: 0 })).rejects.toThrow(
      'the condition: not within 0 ms; the last value was null',
    );
  });
});
