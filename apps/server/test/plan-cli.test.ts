import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, registerUser, type TestContext, testDatabaseUrl } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ BILLING_MODE: 'plans' });
});
afterAll(async () => {
  await ctx.close();
});

const serverDir = path.resolve(import.meta.dirname, '..');

/** `npm run cli -- …` as an operator runs it (tsx src/cli/index.ts), against this run's database. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', ...args], {
      cwd: serverDir,
      env: { ...process.env, DATABASE_URL: testDatabaseUrl(), NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Each test starts the CLI (a Node process loading the server through tsx) up to six times: 1–2 s each on a quiet
// machine, 7–10 s with the cores busy, so these tests get four times the suite's 30 s.
describe('npm run cli -- plan', { timeout: 120_000 }, () => {
  it('assigns a plan through assignPlan; running it again changes nothing', async () => {
    const { client, account } = await registerUser(ctx.app);
    const first = await cli(['plan', String(account.accountId), 'premium-monthly-v3', '10000']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `Account ${account.accountId} is now on premium-monthly-v3 up to 10000 people ($199 per month), status active.`,
    );
    expect((await client.get('/v1/billing')).body).toMatchObject({
      status: 'active',
      planProvider: 'operator',
      plan: { name: 'premium-monthly-v3', peopleUpperLimit: 10000 },
    });
    const again = await cli(['plan', String(account.accountId), 'premium-monthly-v3', '10000']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing changed');
  }, 60_000);

  it('refuses an unknown plan and bad arguments with exit code 2 and a clear message', async () => {
    const { account } = await registerUser(ctx.app);
    const unknown = await cli(['plan', String(account.accountId), 'gold-plan', '2000']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('Unknown plan');
    const usage = await cli(['plan', 'abc']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: npm run cli -- plan <accountId> <planName> <peopleUpperLimit>');
    const option = await cli([
      'plan',
      String(account.accountId),
      'growth-monthly-v1',
      '2000',
      '--provider=bank',
    ]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('Unknown option --provider=bank');
    const missing = await cli(['plan', '999999999', 'growth-monthly-v1', '2000']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe('No such account.');
    expect(
      (
        await ctx.services.db
          .selectFrom('accounts')
          .select('planName')
          .where('id', '=', account.accountId)
          .executeTakeFirstOrThrow()
      ).planName,
    ).toBeNull();
  }, 60_000);
});
