import { describe, expect, it } from 'vitest';
import { Client } from './helpers.ts';
import {
  addPerson,
  createSegment,
  ctx,
  owner,
  useMembershipContext,
  waitForFirstBuild,
  waitForMembers,
} from './segments-membership-fixtures.ts';

// Events sent through the Tracking API feed segments as Herald's own ingest does (docs/people.md,
// "Segment-compatible Tracking API"): the same rows, the same triggers.
useMembershipContext();

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;

describe('the Tracking API and segments', () => {
  it('a track call puts the person in a segment of that event; an identify call in a segment of that field', async () => {
    const person = await addPerson({ city: 'Lisbon' });
    const buyers = await createSegment('Tracking API buyers', [
      {
        type: 'event',
        name: 'Order Completed',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'inTheLast', days: 7 },
        properties: [],
      },
    ]);
    const porto = await createSegment('Tracking API Porto', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Porto' },
    ]);
    await waitForFirstBuild(buyers.id);
    await waitForFirstBuild(porto.id);
    const send = (path: string, body: unknown) =>
      new Client(ctx.app).request('POST', path, {
        rawBody: JSON.stringify(body),
        headers: { authorization: basic(owner.account.writeKey) },
        origin: null,
      });
    // The person is known by email; the SDK knows them by its own user id from here on.
    const identified = await send('/v1/identify', {
      userId: `customer-${person.id}`,
      traits: { email: person.email, city: 'Porto' },
    });
    expect(identified.status).toBe(200);
    await waitForMembers(porto.id, [person.id]);
    const tracked = await send('/v1/track', { userId: `customer-${person.id}`, event: 'Order Completed' });
    expect(tracked.status).toBe(200);
    await waitForMembers(buyers.id, [person.id]);
  });
});
