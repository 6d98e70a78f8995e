import { consentMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { accountOf, ctx, origin, setup, smtp, useBroadcastsContext } from './broadcasts-fixtures.ts';
import { addMember } from './email-helpers.ts';
import { Client, uniqueEmail } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { until } from './until.ts';

// When a confirmation email cannot be sent (docs/senders-and-consent.md, "When a confirmation cannot be sent"): the
// account is told why, and a team member sends it again from the person's page once sending works.
useBroadcastsContext();

type Account = Awaited<ReturnType<typeof setup>>;

const confirmationsTo = (email: string) =>
  smtp.received.filter(
    (m) =>
      JSON.stringify(m.to).toLowerCase().includes(email.toLowerCase()) &&
      m.subject === consentMessages.confirmationSubject,
  ).length;

const openIssues = async (account: Account) =>
  (await account.client.get('/v1/accounts/issues')).body.issues as { kind: string; message: string }[];

/** Double opt-in on, and a person who signed up through the ingest API (so they wait to confirm). */
async function pendingSignup(account: Account) {
  expect(
    (
      await account.client.request('PUT', '/v1/settings/double-opt-in', {
        body: { doubleOptIn: true, forms: {}, confirmationEmailId: null },
      })
    ).status,
  ).toBe(200);
  const email = uniqueEmail('waiting');
  const ingested = await new Client(ctx.app, origin).post(
    '/v1/ingest/batch',
    { batch: [{ type: 'identify', email }] },
    { headers: { 'x-write-key': account.owner.account.writeKey } },
  );
  expect(ingested.status).toBeLessThan(300);
  const id = (await account.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users[0]
    .id as number;
  expect((await account.client.get(`/v1/people/${id}/consent`)).body.status).toBe('pending');
  return { email, id };
}

describe('a confirmation email that cannot be sent', () => {
  it('raises an account alert saying why; once sending works, the person page sends it again and the alert closes', async () => {
    // No verified sender: the built-in confirmation email has no address to come from.
    const account = await setup({ verified: false });
    const { email, id } = await pendingSignup(account);
    await queueDrained(ctx.database.pool);
    expect(confirmationsTo(email)).toBe(0);
    const alert = (await openIssues(account)).find((issue) => issue.kind === 'double-opt-in');
    expect(alert?.message).toMatch(/^Confirmation emails cannot be sent: /);

    await ctx.services.db
      .insertInto('senderAddresses')
      .values({ accountId: accountOf(account.owner), email: account.fromEmail, status: 'verified' })
      .execute();
    const resent = await account.client.post(`/v1/people/${id}/consent/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ message: consentMessages.resentByTeam });
    await until(() => confirmationsTo(email) === 1, {
      timeout: 20_000,
      message: () => `the confirmation email to ${email}`,
    });
    await queueDrained(ctx.database.pool);
    expect((await openIssues(account)).some((issue) => issue.kind === 'double-opt-in')).toBe(false);
    // The audit log names the resend.
    const audit = (await account.client.get('/v1/audit-log?resource=person-confirmation')).body;
    expect(JSON.stringify(audit)).toContain('person-confirmation');
  });

  it('refuses a person who does not wait to confirm (409), one of another account (404), past 3 an hour (429), and a member without people:write (403)', async () => {
    const account = await setup();
    const { id } = await pendingSignup(account);
    const settled = await account.client.post('/v1/people/', { email: uniqueEmail('settled') });
    const notPending = await account.client.post(`/v1/people/${settled.body.user.id}/consent/resend`);
    expect(notPending.status).toBe(409);
    expect(notPending.body.message).toBe(consentMessages.notPending);
    const other = await setup();
    expect((await other.client.post(`/v1/people/${id}/consent/resend`)).status).toBe(404);
    const reader = await addMember(ctx, smtp, account.owner, ['people:read'], origin);
    expect((await reader.post(`/v1/people/${id}/consent/resend`)).status).toBe(403);
    // Three sends again an hour for one person; the fourth is refused.
    for (let i = 0; i < 3; i++)
      expect((await account.client.post(`/v1/people/${id}/consent/resend`)).status).toBe(200);
    const limited = await account.client.post(`/v1/people/${id}/consent/resend`);
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe(consentMessages.resendLimited);
  });
});
