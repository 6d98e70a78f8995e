import { peopleMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let writeKey: string;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  writeKey = owner.account.writeKey;
});
afterAll(() => ctx.close());

/** A site's browser calling the ingestion API: no cookie, another origin, the write key. */
const ingest = (body: unknown, key = writeKey) =>
  new Client(ctx.app).post('/v1/ingest/batch', body, {
    origin: 'https://customer-site.example',
    headers: { 'x-write-key': key },
  });

describe('event ingestion', () => {
  it('identifies people and records events in one batch; the timeline pages newest first', async () => {
    const email = uniqueEmail('ingest');
    const res = await ingest({
      batch: [
        { type: 'identify', email, traits: { firstName: 'Ina', tags: 'lead' } },
        {
          type: 'page',
          email: email.toUpperCase(),
          url: 'https://customer-site.example/pricing',
          timestamp: '2026-01-01T10:00:00Z',
        },
        {
          type: 'track',
          email,
          name: 'Signed up',
          properties: { plan: 'pro' },
          timestamp: '2026-01-02T10:00:00Z',
        },
        {
          type: 'track',
          email,
          name: 'form-submitted',
          url: 'https://customer-site.example/contact',
          properties: { form: { id: 'contact' } },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({ accepted: 4, rejected: [] });

    const found = await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`);
    expect(found.body.users).toHaveLength(1);
    const person = found.body.users[0];
    expect(person).toMatchObject({ email, firstName: 'Ina', tags: 'lead' });

    const first = await owner.client.get(`/v1/people/${person.id}/events?limit=2`);
    expect(first.body.events.map((e: { name: string }) => e.name)).toEqual(['form-submitted', null]);
    expect(first.body.paging.after).toBeTruthy();
    const second = await owner.client.get(
      `/v1/people/${person.id}/events?limit=2&cursor=${first.body.paging.after}`,
    );
    expect(second.body.events.map((e: { name: string }) => e.name)).toEqual(['Signed up', 'Page viewed']);
    expect(second.body.paging.after).toBeNull();

    // The forms list is the site script's (site-tracking.test.ts): a form-submitted event sent through the API is an event only.
    const forms = await owner.client.get('/v1/settings/site-tracking/unique-form-events');
    expect(forms.body.events).toEqual([]);
    const metrics = await owner.client.get(`/v1/people/metrics/${person.id}`);
    expect(metrics.body.metrics).toEqual({ sent: 0, opened: 0, clicked: 0, bounced: 0, unsubscribed: 0 });
  });

  it('anonymous visitors and user ids become people too; bad messages are reported, good ones kept', async () => {
    const anon = `anon-${Date.now()}`;
    const res = await ingest({
      batch: [
        { type: 'page', anonymousId: anon, url: 'https://customer-site.example/' },
        { type: 'page', anonymousId: anon, url: 'https://customer-site.example/blog' },
        { type: 'track', userId: 'u-42', name: 'Logged in' },
        { type: 'track', email: 'not-an-email', name: 'x' },
        { type: 'track', name: 'nobody' },
        { type: 'track', email: uniqueEmail() },
        { type: 'identify', email: uniqueEmail(), traits: { shoeSize: 9 } },
      ],
    });
    expect(res.body.accepted).toBe(3);
    expect(res.body.rejected.map((r: { index: number }) => r.index)).toEqual([3, 4, 5, 6]);
    expect(res.body.rejected[3].message).toBe(peopleMessages.unknownField('shoeSize'));
    const all = await owner.client.get('/v1/people/all/events?limit=500');
    const anonEvents = all.body.events.filter(
      (e: { url: string }) =>
        e.url?.startsWith('https://customer-site.example/') &&
        !e.url.includes('pricing') &&
        !e.url.includes('contact'),
    );
    expect(new Set(anonEvents.map((e: { personId: number }) => e.personId)).size).toBe(1);
  });

  it("writes a batch's identify calls together: per person in the batch's order, a taken address refused", async () => {
    await owner.client.post('/v1/fields', {
      items: [
        { name: 'plan', title: 'Plan', type: 'string' },
        { name: 'seats', title: 'Seats', type: 'number' },
      ],
    });
    const [ada, bob, cat, taken] = ['ada', 'bob', 'cat', 'taken'].map((n) =>
      uniqueEmail(`identify-${n}`),
    ) as [string, string, string, string];
    await ingest({ batch: [{ type: 'identify', email: taken!, traits: { firstName: 'Taken' } }] });
    const newAddress = uniqueEmail('identify-new');
    const res = await ingest({
      batch: [
        {
          type: 'identify',
          email: ada,
          traits: { firstName: 'Ada', plan: 'free', seats: 3, tags: 'lead, trial' },
        },
        { type: 'track', email: ada, name: 'Upgraded' },
        {
          type: 'identify',
          email: ada,
          traits: { plan: 'pro', seats: null, lastName: 'Lovelace', tags: ['trial', 'paid'] },
        },
        { type: 'identify', email: bob, traits: { tags: 'vip' } },
        { type: 'identify', email: bob, traits: { email: taken } },
        { type: 'identify', email: cat, traits: { email: newAddress, company: 'Cat Co' } },
        { type: 'identify', email: bob, traits: { email: newAddress } },
        { type: 'identify', email: cat, traits: { seats: 'many' } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.accepted).toBe(5);
    expect(res.body.rejected).toEqual([
      { index: 4, message: peopleMessages.emailTaken },
      { index: 6, message: peopleMessages.emailTaken },
      { index: 7, message: expect.stringContaining('seats') },
    ]);
    const find = async (email: string) =>
      (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users;
    const [adaRow] = await find(ada);
    expect(adaRow).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      plan: 'pro',
      tags: 'lead, trial, paid',
    });
    expect(adaRow).not.toHaveProperty('seats');
    expect(await find(bob)).toEqual([expect.objectContaining({ email: bob, tags: 'vip' })]);
    expect(await find(cat)).toEqual([]);
    expect(await find(newAddress)).toEqual([
      expect.objectContaining({ email: newAddress, company: 'Cat Co' }),
    ]);
    expect(await find(taken)).toEqual([expect.objectContaining({ firstName: 'Taken' })]);
    // The rejected calls left no event; the accepted ones did, each once.
    const events = await owner.client.get(`/v1/people/${adaRow.id}/events?limit=10`);
    expect(events.body.events.map((e: { type: string }) => e.type).sort()).toEqual([
      'identify',
      'identify',
      'track',
    ]);
  });

  it('refuses a wrong write key and bad batches, writing nothing', async () => {
    expect(
      (await ingest({ batch: [{ type: 'track', email: uniqueEmail(), name: 'x' }] }, 'wrong')).status,
    ).toBe(401);
    expect((await ingest({ batch: [] })).status).toBe(400);
    expect((await ingest({ batch: [{ type: 'alias', email: uniqueEmail() }] })).status).toBe(400);
    expect(
      (
        await ingest({
          batch: Array.from({ length: 1001 }, () => ({ type: 'track', anonymousId: 'a', name: 'x' })),
        })
      ).status,
    ).toBe(400);
    const preflight = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/v1/ingest/batch',
      headers: { origin: 'https://customer-site.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('x-write-key');
  });

  it('accepts an API key instead of the write key', async () => {
    const key = (await owner.client.post('/v1/accounts/rotate-api-key')).body.apiKey;
    const res = await new Client(ctx.app).post(
      '/v1/ingest',
      { type: 'track', email: uniqueEmail(), name: 'Via API key' },
      { headers: { authorization: `Bearer ${key}` }, origin: null },
    );
    expect(res.body).toEqual({ accepted: 1, rejected: [] });
  });

  it('the timeline of an unknown person is a 404 and a broken cursor a 400', async () => {
    expect((await owner.client.get('/v1/people/999999999/events')).status).toBe(404);
    expect((await owner.client.get('/v1/people/all/events?cursor=garbage')).status).toBe(400);
  });
});
