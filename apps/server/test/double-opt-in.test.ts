import { consentMessages, encodeInputFields, type Broadcast } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { confirmationToken } from '../src/features/consent/confirmation-links.ts';
import { recipientToken } from '../src/features/preferences/preference-links.ts';
import {
  accountOf,
  create,
  ctx,
  origin,
  person,
  setup,
  smtp,
  useBroadcastsContext,
} from './broadcasts-fixtures.ts';
import { Client, storedEvents, uniqueEmail } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { until } from './until.ts';

// Double opt-in and proof of consent (docs/senders-and-consent.md): a form or API signup waits to confirm, gets the
// confirmation email and no marketing email until the confirm link's POST; the consent history records each step.
useBroadcastsContext();

const site = 'https://shop.example';
const anon = () => `anon${Math.random().toString(36).slice(2, 14)}`;
const anonymous = () => new Client(ctx.app, origin);

type Account = Awaited<ReturnType<typeof setup>>;

async function turnOn(account: Account, forms: Record<string, unknown> = {}) {
  const res = await account.client.request('PUT', '/v1/settings/double-opt-in', {
    body: {
      doubleOptIn: true,
      forms,
      confirmationEmailId: null,
    },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ doubleOptIn: true });
}

/** The site script's form post from the visitor's browser. */
async function submitForm(account: Account, email: string, formId = 'newsletter') {
  const res = await new Client(ctx.app).request('POST', '/v1/site-tracking/collect', {
    rawBody: JSON.stringify({
      writeKey: account.owner.account.writeKey,
      anonymousId: anon(),
      events: [
        {
          type: 'form',
          url: `${site}/signup`,
          form: { id: formId },
          fields: [{ name: 'email', type: 'email', value: email }],
        },
      ],
    }),
    origin: site,
    headers: { 'content-type': 'text/plain', 'user-agent': 'Journey Browser/1.0' },
  });
  expect(res.status).toBe(200);
}

const personId = async (account: Account, email: string) =>
  (await account.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users[0]
    .id as number;

/** The confirm link's token in the newest confirmation email to `email`. */
async function confirmationLinkToken(email: string, count = 1) {
  const mails = await until(
    () => {
      const found = smtp.received.filter(
        (m) =>
          JSON.stringify(m.to).toLowerCase().includes(email.toLowerCase()) &&
          m.subject === consentMessages.confirmationSubject,
      );
      return found.length >= count && found;
    },
    { timeout: 20_000, message: () => `${count} confirmation email(s) to ${email}` },
  );
  // The link may be a tracked redirect (click tracking) whose destination is the confirmation page.
  const html = decodeURIComponent(String(mails[mails.length - 1]!.html));
  return /public\/confirm-subscription\?token=([A-Za-z0-9_-]+)/.exec(html)![1]!;
}

const mailsTo = (email: string, subject: string) =>
  smtp.received.filter(
    (m) => JSON.stringify(m.to).toLowerCase().includes(email.toLowerCase()) && m.subject === subject,
  ).length;

async function sendBroadcast(account: Account): Promise<void> {
  const broadcast: Broadcast = await create(account.client, {
    name: `News ${Math.random()}`,
    emailId: account.emailId,
    audience: { type: 'all' },
  });
  expect((await account.client.post(`/v1/broadcasts/${broadcast.id}/send`)).status).toBe(200);
  await until(
    async () =>
      (await account.client.get(`/v1/broadcasts/${broadcast.id}/status`)).body.item?.status === 'sent',
    { timeout: 30_000, message: () => `broadcast ${broadcast.id} sent` },
  );
  await queueDrained(ctx.database.pool);
  await smtp.idle();
}

describe('double opt-in', () => {
  it('a form signup gets the confirmation email, no broadcast while pending, confirms once, then gets the next one', async () => {
    const account = await setup();
    await turnOn(account);
    await person(account.client, { firstName: 'Ann' });
    const email = uniqueEmail('signup');
    await submitForm(account, email);
    const id = await personId(account, email);

    const token = await confirmationLinkToken(email);
    const pending = await account.client.get(`/v1/people/${id}/consent`);
    expect(pending.status).toBe(200);
    expect(pending.body.status).toBe('pending');
    expect(pending.body.records).toEqual([
      expect.objectContaining({
        action: 'subscribe',
        source: 'form',
        consentText: consentMessages.defaultConsentText,
        userAgent: 'Journey Browser/1.0',
        ip: expect.any(String),
        details: expect.objectContaining({ form: 'newsletter', doubleOptIn: true }),
      }),
    ]);

    const count = await account.client.post('/v1/broadcasts/audience-count', {
      audience: { type: 'all' },
      emailId: account.emailId,
    });
    expect(count.body).toMatchObject({ total: 2, deliverable: 1, pendingConfirmation: 1 });
    const segments = (await account.client.get('/v1/segments')).body.segments as {
      id: number;
      name: string;
    }[];
    const everyone = segments.find((s) => s.name === 'All People')!;
    const preview = await account.client.get(`/v1/segments/${everyone.id}/preview`);
    expect(preview.body).toEqual({ totalCount: 2, pendingConfirmation: 1 });
    await sendBroadcast(account);
    expect(mailsTo(email, 'News for you')).toBe(0);

    // A scanner's GET of the page does nothing; the page's POST confirms.
    const confirmed = await anonymous().post('/v1/public/confirm-subscription', { token });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'confirmed', message: consentMessages.confirmed });
    const again = await anonymous().post('/v1/public/confirm-subscription', { token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      status: 'alreadyConfirmed',
      message: consentMessages.alreadyConfirmed,
    });

    const history = await account.client.get(`/v1/people/${id}/consent`);
    expect(history.body.status).toBe('confirmed');
    expect(
      history.body.records.map((r: { action: string; source: string }) => `${r.action}:${r.source}`),
    ).toEqual(['confirm:confirmation-link', 'subscribe:form']);
    expect(history.body.records[0].consentText).toBe(consentMessages.defaultConsentText);
    const events = (await storedEvents(ctx.services, accountOf(account.owner))).filter(
      (e) => e.name === 'confirmed',
    );
    expect(events).toHaveLength(1);

    await sendBroadcast(account);
    expect(mailsTo(email, 'News for you')).toBe(1);
  });

  it('an expired link is a 410 that changes nothing, and asks for a new email; a forged one is a 400', async () => {
    const account = await setup();
    await turnOn(account);
    const email = uniqueEmail('late');
    await submitForm(account, email);
    const id = await personId(account, email);
    await confirmationLinkToken(email);
    const old = confirmationToken(
      ctx.services.secret,
      { accountId: accountOf(account.owner), personId: id, email: email.toLowerCase() },
      Date.now() - 8 * 86_400_000,
    );
    const expired = await anonymous().post('/v1/public/confirm-subscription', { token: old });
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ message: consentMessages.linkExpired, errorCode: 'linkExpired' });
    const still = await account.client.get(`/v1/people/${id}/consent`);
    expect(still.body.status).toBe('pending');
    expect(still.body.records).toHaveLength(1);

    const resent = await anonymous().post('/v1/public/confirm-subscription/resend', { token: old });
    expect(resent.status).toBe(200);
    const fresh = await confirmationLinkToken(email, 2);
    expect((await anonymous().post('/v1/public/confirm-subscription', { token: fresh })).status).toBe(200);
    const afterwards = await anonymous().post('/v1/public/confirm-subscription/resend', { token: fresh });
    expect(afterwards.status).toBe(409);

    const forged = await anonymous().post('/v1/public/confirm-subscription', {
      token: `${fresh.slice(0, -4)}AAAA`,
    });
    expect(forged.status).toBe(400);
    expect(forged.body.message).toBe(consentMessages.linkInvalid);
  });

  it('applies to the ingest API and per form; a form set off and people already known are not asked', async () => {
    const account = await setup();
    await turnOn(account, { contact: { doubleOptIn: false, consentText: 'Send me the offer.' } });
    const viaApi = uniqueEmail('api');
    const ingest = await new Client(ctx.app).request('POST', '/v1/ingest', {
      body: { type: 'identify', email: viaApi, traits: { firstName: 'Api' } },
      headers: { 'x-write-key': account.owner.account.writeKey },
    });
    expect(ingest.status).toBe(200);
    const apiHistory = await account.client.get(`/v1/people/${await personId(account, viaApi)}/consent`);
    expect(apiHistory.body.status).toBe('pending');
    expect(apiHistory.body.records[0]).toMatchObject({
      action: 'subscribe',
      source: 'api',
      consentText: consentMessages.apiConsentText,
    });
    await confirmationLinkToken(viaApi);

    const viaContact = uniqueEmail('contact');
    await submitForm(account, viaContact, 'contact');
    const contactHistory = await account.client.get(
      `/v1/people/${await personId(account, viaContact)}/consent`,
    );
    expect(contactHistory.body.status).toBeNull();
    expect(contactHistory.body.records[0]).toMatchObject({
      source: 'form',
      consentText: 'Send me the offer.',
      details: expect.objectContaining({ doubleOptIn: false }),
    });

    const known = await person(account.client, { firstName: 'Known' });
    await submitForm(account, known.email);
    const knownHistory = await account.client.get(`/v1/people/${known.id}/consent`);
    expect(knownHistory.body).toEqual({ status: null, records: [] });
  });

  it('the confirmed event starts a flow whose trigger is the event "confirmed"', async () => {
    const account = await setup();
    await turnOn(account);
    const accountId = accountOf(account.owner);
    const db = ctx.services.db;
    const flow = await db
      .insertInto('flows')
      .values({ accountId, name: 'Welcome the confirmed', reentry: 'once', reentryDays: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('flowSteps')
      .values({
        accountId,
        flowId: flow.id,
        type: 'trigger',
        operationKey: '/event',
        inputFields: JSON.stringify(encodeInputFields({ name: 'confirmed' })),
      })
      .execute();
    await db
      .updateTable('flows')
      .set({ status: 'active', activatedAt: new Date() })
      .where('accountId', '=', accountId)
      .where('id', '=', flow.id)
      .execute();
    const email = uniqueEmail('flow');
    await submitForm(account, email);
    const id = await personId(account, email);
    const runs = () =>
      db
        .selectFrom('flowRuns')
        .select('personId')
        .where('accountId', '=', accountId)
        .where('flowId', '=', flow.id)
        .execute();
    expect(await runs()).toEqual([]);
    const token = await confirmationLinkToken(email);
    expect((await anonymous().post('/v1/public/confirm-subscription', { token })).status).toBe(200);
    expect((await runs()).map((r) => Number(r.personId))).toEqual([id]);
  });

  it('records unsubscribes (link, one-click) and preference changes with their source, IP and user agent', async () => {
    const account = await setup();
    const ann = await person(account.client, { firstName: 'Ann' });
    const token = recipientToken(ctx.services.secret, {
      accountId: accountOf(account.owner),
      personId: ann.id,
    });
    const agent = { 'user-agent': 'Mail Reader/2.0' };
    const categories = (await account.client.get('/v1/settings/communication-categories')).body
      .categories as {
      id: number;
      type: string;
    }[];
    const marketing = categories.find((c) => c.type === 'marketing')!;
    const saved = await anonymous().request('POST', `/v1/communication-preferences?token=${token}`, {
      body: { [String(marketing.id)]: 'optIn' },
      headers: agent,
    });
    expect(saved.status).toBeLessThan(300);
    const viaLink = await anonymous().request('POST', `/v1/unsubscribe?token=${token}`, { headers: agent });
    expect(viaLink.status).toBe(200);
    // Already unsubscribed: a one-click POST changes nothing and records nothing more.
    const oneClick = await anonymous().request('POST', `/public/unsubscribe?token=${token}`, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      origin: null,
    });
    expect(oneClick.status).toBe(200);
    const history = await account.client.get(`/v1/people/${ann.id}/consent`);
    expect(history.body.records).toEqual([
      expect.objectContaining({
        action: 'unsubscribe',
        source: 'unsubscribe-link',
        userAgent: 'Mail Reader/2.0',
      }),
      expect.objectContaining({
        action: 'preferences',
        source: 'preference-centre',
        ip: expect.any(String),
        details: { choices: expect.objectContaining({}) },
      }),
    ]);
  });

  it('checks the settings and the consent read', async () => {
    const account = await setup();
    const bad = await account.client.request('PUT', '/v1/settings/double-opt-in', {
      body: {
        doubleOptIn: true,
        forms: {},
        confirmationEmailId: 999_999,
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(consentMessages.emailNotFound);
    expect((await account.client.get('/v1/people/999999/consent')).status).toBe(404);
    const other = await setup();
    const mine = await person(account.client, { firstName: 'Mine' });
    expect((await other.client.get(`/v1/people/${mine.id}/consent`)).status).toBe(404);
  });
});
