import { createTestContext, registerUser, type TestContext } from '../helpers.ts';
import { faultsSecret } from './herald-process.ts';

/** Full counts (issue 22: 20 kills, 100k rows, 10k mails and runs, a minute of SMTP outage) with FAULTS_FULL=1. */
export const isFull = process.env.FAULTS_FULL === '1';

/**
 * The suite's own in-process app on the run's test database, sharing the Herald process's data directory and
 * secret: it prepares accounts and reads results, and runs no jobs (the Herald process under test does the work).
 */
export async function faultsContext(dataDir: string, env: Record<string, string> = {}): Promise<TestContext> {
  return createTestContext({ DATA_DIR: dataDir, SESSION_SECRET: faultsSecret, ...env });
}

export type Owner = Awaited<ReturnType<typeof registerUser>>;
export const accountOf = (owner: Owner) => owner.account.accountId as number;

/** A part's time limit: ten minutes, half an hour with the full counts. */
export const testTimeoutMs = isFull ? 1_800_000 : 600_000;
