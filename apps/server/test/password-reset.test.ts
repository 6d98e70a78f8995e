import { messages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../src/lib/tokens.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { resetTokenFrom, startSmtpServer } from './smtp.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_FROM: 'Herald <no-reply@herald.test>' });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

async function requestReset(email: string) {
  return new Client(ctx.app).post('/v1/accounts/request-reset-password', { email });
}

describe('password reset through a real SMTP server', () => {
  it('mails a link; the new password works, the old one does not, other sessions are revoked', async () => {
    const { email, password, client: otherDevice } = await registerUser(ctx.app);
    const res = await requestReset(email);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(messages.resetRequested);
    const mail = await smtp.waitFor(email);
    expect(mail.subject).toBe('Reset your Herald password');
    expect(mail.from?.text).toContain('no-reply@herald.test');
    expect(mail.text).toContain('http://localhost:3000/reset-password?token=');
    expect(mail.html).toContain('Choose a new password');

    const browser = new Client(ctx.app);
    const reset = await browser.post('/v1/accounts/reset-password', {
      token: resetTokenFrom(mail),
      password: 'brand new password',
    });
    expect(reset.status).toBe(200);
    expect((await browser.get('/v1/heartbeat/authenticated')).status).toBe(200);
    expect((await otherDevice.get('/v1/heartbeat/authenticated')).status).toBe(401);
    expect((await new Client(ctx.app).post('/v1/accounts/login/', { email, password })).status).toBe(401);
    expect(
      (await new Client(ctx.app).post('/v1/accounts/login/', { email, password: 'brand new password' }))
        .status,
    ).toBe(200);
  });

  it('a link works once', async () => {
    const { email } = await registerUser(ctx.app);
    await requestReset(email);
    const token = resetTokenFrom(await smtp.waitFor(email));
    expect(
      (
        await new Client(ctx.app).post('/v1/accounts/reset-password', {
          token,
          password: 'first new password',
        })
      ).status,
    ).toBe(200);
    const again = await new Client(ctx.app).post('/v1/accounts/reset-password', {
      token,
      password: 'second new password',
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(messages.resetTokenInvalid);
  });

  it('refuses an expired link and a tampered one', async () => {
    const { email } = await registerUser(ctx.app);
    await requestReset(email);
    const token = resetTokenFrom(await smtp.waitFor(email));
    const [body] = token.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as { r: string };
    const expired = signToken({ r: payload.r }, ctx.services.secret, 60, Date.now() - 2 * 3600_000);
    const tampered = `${Buffer.from(JSON.stringify({ ...payload, exp: 9_999_999_999 })).toString('base64url')}.${token.split('.')[1]}`;
    for (const bad of [expired, tampered, 'garbage', `${token}x`]) {
      const res = await new Client(ctx.app).post('/v1/accounts/reset-password', {
        token: bad,
        password: 'a new password',
      });
      expect(res.status, bad).toBe(400);
      expect(res.body.message).toBe(messages.resetTokenInvalid);
    }
    // The genuine link still works: the failures above changed nothing.
    expect(
      (await new Client(ctx.app).post('/v1/accounts/reset-password', { token, password: 'a new password' }))
        .status,
    ).toBe(200);
  });

  it('a stored reset past its expiry is refused even with a valid signature', async () => {
    const { email } = await registerUser(ctx.app);
    await requestReset(email);
    const token = resetTokenFrom(await smtp.waitFor(email));
    const user = await ctx.services.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    await ctx.services.db
      .updateTable('passwordResets')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('userId', '=', user.id)
      .execute();
    const res = await new Client(ctx.app).post('/v1/accounts/reset-password', {
      token,
      password: 'a new password',
    });
    expect(res.status).toBe(400);
  });

  it('answers the same for an unknown email and sends nothing', async () => {
    const email = uniqueEmail('nobody');
    const res = await requestReset(email);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(messages.resetRequested);
    await expect(smtp.waitFor(email, 1500)).rejects.toThrow();
  });

  it('refuses a short new password and an invalid email', async () => {
    expect((await requestReset('not-an-email')).status).toBe(400);
    const res = await new Client(ctx.app).post('/v1/accounts/reset-password', {
      token: 'x.y',
      password: 'short',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(messages.passwordTooShort);
  });

  it('limits reset requests per email', async () => {
    const { email } = await registerUser(ctx.app);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await requestReset(email)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('mail delivery is idempotent', () => {
  it('delivering the same key twice sends one message', async () => {
    const email = uniqueEmail('idem');
    const { queueMail } = await import('../src/mail/mailer.ts');
    const mail = { to: email, subject: 'Once', text: 'only once', idempotencyKey: `test:${email}` };
    await queueMail(ctx.services.db, ctx.config, mail);
    await queueMail(ctx.services.db, ctx.config, mail);
    await smtp.waitFor(email);
    await ctx.mailer.deliver(mail.idempotencyKey);
    await queueDrained(ctx.database.pool);
    expect(smtp.received.filter((m) => JSON.stringify(m.to).includes(email))).toHaveLength(1);
    const delivery = await ctx.services.db
      .selectFrom('mailDeliveries')
      .selectAll()
      .where('idempotencyKey', '=', mail.idempotencyKey)
      .executeTakeFirstOrThrow();
    expect(delivery.status).toBe('sent');
  });
});
