import { describe, expect, it } from 'vitest';
import { toPerson } from '../src/features/people/people.queries.ts';

// toPerson builds the API shape with Object.assign for speed (docs/people.md, "What a page costs besides the search");
// it must give exactly what the object spread gave.
const row = (fields: string) => ({
  id: 7,
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: null,
  phone: null,
  company: 'Analytical',
  website: null,
  externalId: 'u-7',
  tags: ['lead', 'vip'],
  fields: JSON.parse(fields) as unknown,
  createdAt: new Date('2026-01-02T03:04:05.678Z'),
  updatedAt: new Date('2026-02-03T04:05:06.789Z'),
  archivedAt: null,
  unsubscribedAt: new Date('2026-03-04T00:00:00Z'),
  unsubscribeReason: 'too many',
});

describe('toPerson', () => {
  it.each([
    ['{}'],
    ['{"city": "Oslo", "score": 3}'],
    ['{"email": "shadow@example.com", "plan": "pro"}'],
    ['{"__proto__": "a field", "constructor": 1, "city": "Oslo"}'],
  ])('gives the keys, order and values of the spread for fields %s', (fields) => {
    const r = row(fields);
    const person = toPerson(r as Parameters<typeof toPerson>[0]);
    const spread = {
      ...(r.fields as Record<string, unknown>),
      id: 7,
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: null,
      phone: null,
      company: 'Analytical',
      website: null,
      userId: 'u-7',
      tags: 'lead, vip',
      createdAt: '2026-01-02T03:04:05.678Z',
      updatedAt: '2026-02-03T04:05:06.789Z',
      archived: false,
      unsubscribed: true,
      unsubscribeReason: 'too many',
    };
    expect(Object.getPrototypeOf(person)).toBe(Object.prototype);
    expect(Reflect.ownKeys(person)).toEqual(Reflect.ownKeys(spread));
    expect(JSON.stringify(person)).toBe(JSON.stringify(spread));
  });
});
