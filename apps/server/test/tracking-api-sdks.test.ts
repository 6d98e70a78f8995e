import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import { Analytics } from '@segment/analytics-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

/**
 * Segment's and RudderStack's Node SDKs, unchanged, pointed at a Herald listening on a real port with the account's
 * write key (docs/people.md, "Segment-compatible Tracking API"): what each sends with its own defaults
 * is read back through Herald's own API.
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let baseUrl: string;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  await owner.client.post('/v1/fields', { items: [{ name: 'plan', title: 'Plan', type: 'string' }] });
  baseUrl = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => ctx.close());

interface StoredEvent {
  type: string;
  name: string | null;
  url: string | null;
  data: Record<string, any>;
}

async function personByEmail(email: string) {
  const found = await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`);
  return found.body.users as Record<string, unknown>[];
}
async function timeline(personId: unknown): Promise<StoredEvent[]> {
  return (await owner.client.get(`/v1/people/${personId}/events`)).body.events;
}

/** What both SDKs must have left: the person with their traits, the event with its properties, the page view. */
async function expectRecorded(email: string, userId: string, library: string) {
  const [person] = await personByEmail(email);
  expect(person).toMatchObject({
    email,
    userId,
    firstName: 'Ada',
    lastName: 'Lovelace',
    company: 'Engines',
    plan: 'pro',
  });
  const events = await timeline(person!.id);
  const byType = (type: string) => events.find((e) => e.type === type)!;
  expect(byType('identify').data).toMatchObject({ email, plan: 'pro' });
  expect(byType('track')).toMatchObject({ name: 'Order Completed', data: { total: 42.5, currency: 'EUR' } });
  expect(byType('page')).toMatchObject({
    name: 'Pricing',
    url: 'https://customer-site.example/pricing',
    data: { title: 'Pricing' },
  });
  // The SDK's own context (its library's name) is kept on the event, and the message's id.
  expect(byType('track').data.$segment.context.library.name).toBe(library);
  expect(byType('track').data.$segment.messageId).toEqual(expect.any(String));
}

const traits = (email: string) => ({
  email,
  firstName: 'Ada',
  lastName: 'Lovelace',
  company: { name: 'Engines' },
  plan: 'pro',
});
const order = { total: 42.5, currency: 'EUR' };
const pricing = { url: 'https://customer-site.example/pricing', title: 'Pricing' };

describe('the Tracking API driven by the real SDKs', () => {
  it('@segment/analytics-node: identify, track and page appear in Herald', async () => {
    const [email, userId] = [uniqueEmail('segment-sdk'), `seg-${Date.now()}`];
    const analytics = new Analytics({ writeKey: owner.account.writeKey, host: baseUrl, flushInterval: 50 });
    const errors: unknown[] = [];
    analytics.on('error', (error) => errors.push(error));
    analytics.identify({ userId, traits: traits(email) });
    analytics.track({ userId, event: 'Order Completed', properties: order });
    analytics.page({ userId, name: 'Pricing', properties: pricing });
    await analytics.closeAndFlush({ timeout: 20_000 });
    expect(errors).toEqual([]);
    await expectRecorded(email, userId, '@segment/analytics-node');
  });

  it('@rudderstack/rudder-sdk-node (gzip by default): identify, track and page appear in Herald', async () => {
    const [email, userId] = [uniqueEmail('rudder-sdk'), `rudder-${Date.now()}`];
    const client = new RudderAnalytics(owner.account.writeKey, { dataPlaneUrl: baseUrl, logLevel: 'error' });
    const sent = (call: (done: (error?: Error) => void) => void) =>
      new Promise<void>((resolve, reject) => call((error) => (error ? reject(error) : resolve())));
    await Promise.all([
      sent((done) => client.identify({ userId, traits: traits(email) }, done)),
      sent((done) => client.track({ userId, event: 'Order Completed', properties: order }, done)),
      sent((done) => client.page({ userId, name: 'Pricing', properties: pricing }, done)),
      client.flush(),
    ]);
    await expectRecorded(email, userId, 'analytics-node');
  });

  it('a wrong write key creates nobody, whichever SDK sends it', async () => {
    const email = uniqueEmail('wrong-key');
    const analytics = new Analytics({
      writeKey: 'wk_not_a_key',
      host: baseUrl,
      flushInterval: 50,
      maxRetries: 0,
    });
    const failures: unknown[] = [];
    analytics.on('error', (error) => failures.push(error));
    analytics.identify({ userId: 'nobody-1', traits: { email } });
    await analytics.closeAndFlush({ timeout: 20_000 });
    expect(failures).toHaveLength(1);

    const client = new RudderAnalytics('wk_not_a_key', {
      dataPlaneUrl: baseUrl,
      logLevel: 'error',
      retryCount: 0,
      // Without one, the SDK's own flush rejects with nobody to catch it.
      errorHandler: () => undefined,
    });
    const refused = await new Promise<Error | undefined>((resolve) => {
      client.identify({ userId: 'nobody-2', traits: { email } }, (error?: Error) => resolve(error));
    });
    expect(refused).toBeInstanceOf(Error);
    expect(await personByEmail(email)).toEqual([]);
  });
});
