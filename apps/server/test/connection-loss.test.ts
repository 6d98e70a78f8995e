import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from '../src/lib/connection-loss.ts';

const module = path.resolve(import.meta.dirname, '../src/lib/connection-loss.ts');

/** A Node process that installs the handler and leaves `error` rejected with nobody to handle it, as the job queue does. */
function runWithUnhandled(error: string) {
  const script = `
    const { keepRunningOnConnectionLoss } = await import(${JSON.stringify(module)});
    keepRunningOnConnectionLoss((message) => console.error(message));
    void Promise.reject(${error});
    setTimeout(() => { console.log('still running'); process.exit(0); }, 300);`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('a lost database connection is not fatal (issue 22: the server exited on a PostgreSQL restart)', () => {
  it('tells lost connections from other errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isConnectionLoss(refused)).toBe(true);
    expect(
      isConnectionLoss(
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ).toBe(true);
    expect(
      isConnectionLoss(Object.assign(new Error('the database system is starting up'), { code: '57P03' })),
    ).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isConnectionLoss(new Error('Client has encountered a connection error and is not queryable')),
    ).toBe(true);
    expect(
      isConnectionLoss(
        Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      ),
    ).toBe(false);
    expect(isConnectionLoss(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isConnectionLoss('ECONNREFUSED')).toBe(false);
  });

  it('keeps the process running through an unhandled rejection that is a lost connection, and still exits on any other', () => {
    const lost = runWithUnhandled(
      `Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:54371'), { code: 'ECONNREFUSED' })`,
    );
    expect(lost.stdout).toContain('still running');
    expect(lost.stderr).toContain('lost the database connection');
    expect(lost.status).toBe(0);
    const bug = runWithUnhandled(`new TypeError('a real bug')`);
    expect(bug.stdout).not.toContain('still running');
    expect(bug.stderr).toContain('a real bug');
    expect(bug.status).not.toBe(0);
  });
});
