import crypto from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/** A person as the tests create them, with the values the reference evaluator reads. */
export interface TestPerson {
  id: number;
  email: string | null;
  firstName: string | null;
  fields: Record<string, unknown>;
  tags: string[];
  createdAt: Date;
  archived: boolean;
  unsubscribed: boolean;
}
export interface TestEvent {
  personId: number;
  type: 'track' | 'page' | 'form' | 'email';
  name: string | null;
  url: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
}
export interface DataSet {
  accountId: number;
  people: TestPerson[];
  events: TestEvent[];
}

/** The instant every test measures "the last N days" from. */
export const testNow = new Date('2026-06-15T12:00:00Z');
export const customFieldTypes = {
  plan: 'string',
  score: 'number',
  renewal: 'date',
  newsletter: 'boolean',
  tier: 'enum',
} as const;
export const plans = ['pro', 'Pro', 'free', 'starter', '', 'enterprise plan'];
export const tagPool = ['customer', 'lead', 'vip', 'trial', "o'brien", '50%_off'];
export const eventNames = ['Signed in', 'Order completed', 'Viewed product'];
export const urls = [
  'https://site.test/pricing',
  'https://site.test/blog/launch',
  'https://site.test/Docs/start',
  'https://other.test/pricing?x=1',
  'https://site.test/100%_real',
];
export const forms = ['Newsletter', 'Demo request'];

/** A small deterministic generator (mulberry32), so a failing property test can be replayed. */
export function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]) => list[int(list.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}

const day = 86_400_000;

/** Create an account with custom fields, `count` people and their events; returns what was stored. */
export async function createDataSet(db: Kysely<any>, seed: number, count = 60): Promise<DataSet> {
  const r = random(seed);
  // Two test files may build the same seed's data set at once: the account's write key (unique) must still differ.
  const unique = `${seed}-${Date.now()}-${crypto.randomUUID()}`;
  const { rows: accounts } = await sql<{
    id: number;
  }>`insert into accounts (name, email, write_key, trial_ends_at)
    values (${`segments-test-${seed}`}, ${`owner-${unique}@example.com`}, ${`wk-${unique}`}, now()) returning id`.execute(
    db,
  );
  const accountId = Number(accounts[0]!.id);
  for (const [name, type] of Object.entries(customFieldTypes)) {
    await sql`insert into person_fields (account_id, name, type, title) values (${accountId}, ${name}, ${type}, ${name})`.execute(
      db,
    );
  }
  const people: TestPerson[] = [];
  const events: TestEvent[] = [];
  for (let i = 0; i < count; i += 1) {
    const fields: Record<string, unknown> = {};
    if (r.chance(0.8)) fields.plan = r.pick(plans);
    if (r.chance(0.7)) fields.score = r.int(100);
    else if (r.chance(0.2)) fields.score = 'not a number';
    if (r.chance(0.6))
      fields.renewal = new Date(testNow.getTime() + (r.int(400) - 200) * day + r.int(day)).toISOString();
    else if (r.chance(0.2)) fields.renewal = r.pick(['2026-06-15', 'someday', '2026-02-30']);
    if (r.chance(0.7)) fields.newsletter = r.chance(0.5);
    if (r.chance(0.5)) fields.tier = r.pick(['gold', 'silver']);
    const tags = tagPool.filter(() => r.chance(0.3));
    // Some people share today's month and day with an earlier year (anniversaries).
    const createdAt = r.chance(0.1)
      ? new Date(testNow.getTime() - 365 * day * (1 + r.int(3)) - day * 0)
      : new Date(testNow.getTime() - r.int(400) * day - r.int(day));
    const archived = r.chance(0.1);
    const unsubscribed = r.chance(0.15);
    const email = r.chance(0.9) ? `p${seed}-${i}@example.com` : null;
    const firstName = r.chance(0.8) ? r.pick(['Ada', 'ada', 'Bob', 'Zoë', 'Al']) : null;
    const { rows } = await sql<{
      id: number;
    }>`insert into people (account_id, email, first_name, fields, tags, created_at, archived_at, unsubscribed_at)
      values (${accountId}, ${email}, ${firstName}, ${JSON.stringify(fields)}::jsonb, ${tags}::text[], ${createdAt},
        ${archived ? testNow : null}, ${unsubscribed ? testNow : null}) returning id`.execute(db);
    const id = Number(rows[0]!.id);
    people.push({ id, email, firstName, fields, tags, createdAt, archived, unsubscribed });
    const n = r.int(6);
    for (let k = 0; k < n; k += 1) {
      const at = new Date(testNow.getTime() - r.int(120) * day - r.int(day));
      const kind = r.pick(['track', 'track', 'page', 'form', 'email'] as const);
      const event: TestEvent =
        kind === 'track'
          ? {
              personId: id,
              type: kind,
              name: r.pick(eventNames),
              url: null,
              data: r.chance(0.5) ? { plan: r.pick(['Pro', 'free']), amount: r.int(3) } : {},
              createdAt: at,
            }
          : kind === 'page'
            ? { personId: id, type: kind, name: 'Page viewed', url: r.pick(urls), data: {}, createdAt: at }
            : kind === 'form'
              ? { personId: id, type: kind, name: r.pick(forms), url: null, data: {}, createdAt: at }
              : {
                  personId: id,
                  type: kind,
                  name: r.pick(['sent', 'opened', 'clicked', 'bounced', 'unsubscribed']),
                  url: null,
                  data: { emailId: 1 + r.int(3), flowId: 1 + r.int(2), broadcastId: 7 },
                  createdAt: at,
                };
      events.push(event);
    }
  }
  for (const e of events) {
    await sql`insert into events (account_id, person_id, type, name, url, data, created_at)
      values (${accountId}, ${e.personId}, ${e.type}, ${e.name}, ${e.url}, ${JSON.stringify(e.data)}::jsonb, ${e.createdAt})`.execute(
      db,
    );
  }
  return { accountId, people, events };
}
