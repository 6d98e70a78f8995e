import fc from 'fast-check';
import { peopleMessages, messages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formHash,
  formShape,
  isSecretField,
  keptValues,
  looksLikeCardNumber,
  mappedValues,
  normalisePageUrl,
} from '../src/features/site-tracking/form-payload.ts';
import { identityToken } from '../src/features/site-tracking/visitor-identity.ts';
import {
  Client,
  createTestContext,
  registerUser,
  storedEvents,
  uniqueEmail,
  type TestContext,
} from './helpers.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let writeKey: string;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  writeKey = owner.account.writeKey;
});
afterAll(() => ctx.close());

const site = 'https://shop.example';
/** The site script's post: text/plain JSON from another origin, no cookie. */
const collect = (body: unknown) =>
  new Client(ctx.app).request('POST', '/v1/site-tracking/collect', {
    rawBody: typeof body === 'string' ? body : JSON.stringify(body),
    origin: site,
    headers: { 'content-type': 'text/plain' },
  });
const anon = () => `anon${Math.random().toString(36).slice(2, 14)}`;
const eventCount = async () => (await storedEvents(ctx.services, owner.account.accountId)).length;
const personByEmail = async (email: string) =>
  (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users[0];

describe('site script', () => {
  it('is served by Herald as JavaScript', async () => {
    const res = await new Client(ctx.app).get('/site.js', { origin: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/javascript');
    expect(String(res.body)).toContain('/v1/site-tracking/collect');
    expect(String(res.body).length).toBeLessThan(6000);
  });
});

describe('collecting page views and forms', () => {
  it('records an anonymous visitor, then merges them into the person a form identifies, and lists the form', async () => {
    const visitor = anon();
    const email = uniqueEmail('form');
    const page = await collect({
      writeKey,
      anonymousId: visitor,
      events: [{ type: 'page', url: `${site}/pricing?x=1#top`, title: 'Pricing' }],
    });
    expect(page.status).toBe(200);
    expect(page.headers['access-control-allow-origin']).toBe('*');
    expect(page.body).toEqual({ accepted: 1, identified: false });

    const form = await collect({
      writeKey,
      anonymousId: visitor,
      events: [
        {
          type: 'form',
          url: `${site}/contact?utm=x`,
          form: { id: 'contact' },
          fields: [
            { name: 'email', type: 'email', value: email.toUpperCase() },
            { name: 'first', type: 'text', value: 'Ada' },
            { name: 'password', type: 'password', value: 'hunter2' },
            { name: 'cc', type: 'text', value: '4111 1111 1111 1111' },
          ],
        },
      ],
    });
    expect(form.body).toEqual({ accepted: 1, identified: true });
    const person = await personByEmail(email);
    const timeline = await owner.client.get(`/v1/people/${person.id}/events?limit=10`);
    expect(timeline.body.events.map((e: { name: string }) => e.name)).toEqual([
      'form-submitted',
      'Page viewed',
    ]);
    expect(timeline.body.events[1].url).toBe(`${site}/pricing?x=1`);
    const submitted = timeline.body.events[0];
    expect(submitted.url).toBe(`${site}/contact`);
    expect(submitted.data.values).toEqual({ email: email.toUpperCase(), first: 'Ada' });
    expect(JSON.stringify(submitted.data)).not.toContain('hunter2');
    expect(JSON.stringify(submitted.data)).not.toContain('4111');

    const forms = await owner.client.get('/v1/settings/site-tracking/unique-form-events');
    expect(forms.status).toBe(200);
    expect(forms.body.events).toEqual([
      {
        url: `${site}/contact`,
        data: { form: { id: 'contact', name: null, fields: ['email', 'first'] } },
        hash: expect.stringMatching(/^[0-9a-f]{16}$/),
        key: 'contact',
        submissions: 1,
        lastSeenAt: expect.any(String),
      },
    ]);

    // The anonymous person is gone: the visitor's next page views land on the known person.
    await collect({ writeKey, anonymousId: visitor, events: [{ type: 'page', url: `${site}/thanks` }] });
    expect((await owner.client.get(`/v1/people/${person.id}/events?limit=10`)).body.events).toHaveLength(3);
    const status = await owner.client.get('/v1/settings/site-tracking');
    expect(status.body).toMatchObject({
      writeKey,
      scriptUrl: 'http://localhost:3000/site.js',
      visitors: 1,
      identifiedVisitors: 1,
      pageViews: 2,
      forms: 1,
    });
    expect(status.body.snippet).toBe(
      `<script async src="http://localhost:3000/site.js" data-write-key="${writeKey}"></script>`,
    );
  });

  it('fills person fields through the form mapping saved on the account', async () => {
    const email = uniqueEmail('mapped');
    const saved = await owner.client.patch('/v1/accounts/me', {
      formFieldMappings: { signup: { mail: 'email', given: 'firstName', family: 'lastName' } },
    });
    expect(saved.status).toBe(200);
    const res = await collect({
      writeKey,
      anonymousId: anon(),
      events: [
        {
          type: 'form',
          url: `${site}/`,
          form: { id: 'signup' },
          fields: [
            { name: 'mail', type: 'text', value: email },
            { name: 'given', type: 'text', value: 'Grace' },
            { name: 'family', type: 'text', value: 'Hopper' },
          ],
        },
      ],
    });
    expect(res.body.identified).toBe(true);
    expect(await personByEmail(email)).toMatchObject({ email, firstName: 'Grace', lastName: 'Hopper' });
  });

  it('records a submission whose mapping names a field the account lacks, leaving the person as it was', async () => {
    const email = uniqueEmail('unmapped');
    expect(
      (await owner.client.patch('/v1/accounts/me', { formFieldMappings: { odd: { size: 'shoeSize' } } }))
        .status,
    ).toBe(200);
    const res = await collect({
      writeKey,
      anonymousId: anon(),
      events: [
        {
          type: 'form',
          url: `${site}/odd`,
          form: { id: 'odd' },
          fields: [
            { name: 'email', type: 'email', value: email },
            { name: 'size', type: 'text', value: '9' },
          ],
        },
      ],
    });
    expect(res.body).toEqual({ accepted: 1, identified: true });
    const person = await personByEmail(email);
    const [event] = (await owner.client.get(`/v1/people/${person.id}/events?limit=1`)).body.events;
    expect(event.data).toMatchObject({
      key: 'odd',
      values: { email, size: '9' },
      mapping: peopleMessages.unknownField('shoeSize'),
    });
  });

  it('identifies a visitor by the hrld_id of an email click, and ignores a forged or foreign one', async () => {
    const email = uniqueEmail('clicked');
    await collect({
      writeKey,
      anonymousId: anon(),
      events: [
        {
          type: 'form',
          url: `${site}/a`,
          form: {},
          fields: [{ name: 'email', type: 'email', value: email }],
        },
      ],
    });
    const person = await personByEmail(email);
    const visitor = anon();
    await collect({ writeKey, anonymousId: visitor, events: [{ type: 'page', url: `${site}/before` }] });
    const token = identityToken(ctx.services.secret, owner.account.accountId, person.id);
    const res = await collect({
      writeKey,
      anonymousId: visitor,
      identity: token,
      events: [{ type: 'page', url: `${site}/landing?hrld_id=${token}` }],
    });
    expect(res.body).toEqual({ accepted: 1, identified: true });
    const events = (await owner.client.get(`/v1/people/${person.id}/events?limit=10`)).body.events;
    expect(events.map((e: { url: string }) => e.url)).toEqual([
      `${site}/landing`,
      `${site}/before`,
      `${site}/a`,
    ]);

    const forged = await collect({
      writeKey,
      anonymousId: anon(),
      identity: `${token.slice(0, -2)}AA`,
      events: [{ type: 'page', url: `${site}/x` }],
    });
    expect(forged.body.identified).toBe(false);
    const foreign = await collect({
      writeKey,
      anonymousId: anon(),
      identity: identityToken(ctx.services.secret, owner.account.accountId + 100000, person.id),
      events: [{ type: 'page', url: `${site}/y` }],
    });
    expect(foreign.body.identified).toBe(false);
  });

  it('refuses an unknown write key, a 1 MB body and malformed posts with a 4xx, writing nothing', async () => {
    const before = await eventCount();
    const unknown = await collect({
      writeKey: 'not-a-key',
      anonymousId: anon(),
      events: [{ type: 'page', url: `${site}/` }],
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.message).toBe(peopleMessages.invalidWriteKey);
    const huge = await collect({
      writeKey,
      anonymousId: anon(),
      events: [{ type: 'page', url: `${site}/`, title: 'x'.repeat(1024 * 1024) }],
    });
    expect(huge.status).toBe(413);
    expect(huge.body.message).toBe(messages.bodyTooLarge);
    for (const bad of [
      'not json',
      { writeKey, anonymousId: 'short', events: [{ type: 'page', url: `${site}/` }] },
      { writeKey, anonymousId: anon(), events: [] },
      { writeKey, anonymousId: anon(), events: [{ type: 'page', url: 'not a url' }] },
      { writeKey, anonymousId: anon(), events: [{ type: 'click', url: `${site}/` }] },
      {
        writeKey,
        anonymousId: anon(),
        events: Array.from({ length: 21 }, () => ({ type: 'page', url: `${site}/` })),
      },
      {
        writeKey,
        anonymousId: anon(),
        events: [
          { type: 'form', url: `${site}/`, form: {}, fields: [{ name: '', type: 'text', value: 'x' }] },
        ],
      },
    ]) {
      const res = await collect(bad);
      expect(res.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
      expect(res.body.message).toEqual(expect.any(String));
    }
    expect(await eventCount()).toBe(before);
  });

  it('needs a signed-in session for the forms list and the status', async () => {
    const stranger = new Client(ctx.app);
    expect((await stranger.get('/v1/settings/site-tracking/unique-form-events')).status).toBe(401);
    expect((await stranger.get('/v1/settings/site-tracking')).status).toBe(401);
    const other = await registerUser(ctx.app);
    expect((await other.client.get('/v1/settings/site-tracking/unique-form-events')).body.events).toEqual([]);
    expect((await other.client.get('/v1/settings/site-tracking')).body).toMatchObject({
      visitors: 0,
      forms: 0,
      lastSeenAt: null,
    });
  });
});

const field = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }),
  type: fc.constantFrom('text', 'email', 'password', 'tel', 'checkbox'),
  value: fc.string({ maxLength: 30 }),
});

describe('form payloads', () => {
  it('never keep a password field or a card number', () => {
    const card = fc.constantFrom(
      '4111111111111111',
      '5500 0000 0000 0004',
      '3400-000000-00009',
      '6011000990139424',
    );
    fc.assert(
      fc.property(fc.array(field, { maxLength: 12 }), card, (fields, number) => {
        // Password values carry a character the generated fields never hold, so finding it means one leaked.
        const secrets = fields.map((f, i) =>
          f.type === 'password' ? { ...f, value: `${f.value}§${i}` } : f,
        );
        const kept = keptValues([...secrets, { name: 'note', type: 'text', value: number }]);
        expect(Object.values(kept).join('\n')).not.toContain('§');
        expect(Object.values(kept)).not.toContain(number);
        expect(looksLikeCardNumber(number)).toBe(true);
        expect(isSecretField({ name: 'pw', type: 'password', value: '' })).toBe(true);
      }),
    );
  });

  it('hash a form the same whatever order its fields come in, and differently for another page', () => {
    fc.assert(
      fc.property(fc.array(field, { maxLength: 10 }), fc.string({ maxLength: 10 }), (fields, id) => {
        const a = formShape({ id }, fields);
        const b = formShape({ id }, [...fields].reverse());
        expect(formHash('https://a.example/x', a)).toBe(formHash('https://a.example/x', b));
        expect(formHash('https://a.example/x', a)).not.toBe(formHash('https://a.example/y', a));
      }),
    );
  });

  it('map only mapped, non-empty values and never write email as a value', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 })),
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }),
          fc.constantFrom('email', 'firstName', 'lastName', 'city'),
        ),
        (values, mapping) => {
          const out = mappedValues(values, mapping);
          expect(out).not.toHaveProperty('email');
          for (const [personField, value] of Object.entries(out)) {
            expect(value).not.toBe('');
            expect(
              Object.entries(mapping).some(
                ([formField, target]) => target === personField && values[formField] === value,
              ),
            ).toBe(true);
          }
        },
      ),
    );
  });

  it('take hrld_id and the fragment out of page addresses, idempotently', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const once = normalisePageUrl(`${url}${url.includes('?') ? '&' : '?'}hrld_id=abc`);
        expect(once).not.toContain('hrld_id');
        expect(once).not.toContain('#');
        expect(normalisePageUrl(once)).toBe(once);
      }),
    );
  });
});
