import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';
import { until } from './until.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.startWorker();
});
afterAll(() => ctx.close());

async function waitForMailTo(client: Client, email: string) {
  return until(
    async () =>
      (await client.get('/v1/dev/mailbox')).body.messages.find((m: { to: string }) => m.to === email) as
        { id: number; to: string; subject: string; text: string; html: string } | undefined,
    { timeout: 15_000, message: `a mail to ${email} in the mailbox` },
  );
}

describe('the built-in mailbox (no SMTP_URL, not production)', () => {
  it('receives the reset email, readable without signing in from this machine', async () => {
    const { email } = await registerUser(ctx.app);
    const visitor = new Client(ctx.app);
    expect((await visitor.get('/v1/config')).body.devMailbox).toBe(true);
    await visitor.post('/v1/accounts/request-reset-password', { email });
    const message = await waitForMailTo(visitor, email);
    expect(message.subject).toBe('Reset your Herald password');
    const one = await visitor.get(`/v1/dev/mailbox/${message.id}`);
    expect(one.status).toBe(200);
    expect(one.body.text).toContain('/reset-password?token=');
    expect((await visitor.get('/v1/dev/mailbox/999999999')).status).toBe(404);
    expect((await visitor.get('/v1/dev/mailbox/abc')).status).toBe(400);
  });

  it('does not answer other machines', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/dev/mailbox', remoteAddress: '203.0.113.9' });
    expect(res.statusCode).toBe(404);
  });

  it('is closed when SMTP is configured', async () => {
    const withSmtp = await createTestContext({ SMTP_URL: 'smtp://127.0.0.1:2' });
    try {
      expect((await new Client(withSmtp.app).get('/v1/dev/mailbox')).status).toBe(404);
      expect((await new Client(withSmtp.app).get('/v1/config')).body.devMailbox).toBe(false);
    } finally {
      await withSmtp.close();
    }
  });
});
