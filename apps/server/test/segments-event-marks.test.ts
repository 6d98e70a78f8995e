import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { holdSegmentRefreshes } from '../src/db/refresh-hold.ts';
import {
  accountId,
  addPerson,
  createSegment,
  ctx,
  members,
  useMembershipContext,
  waitForFirstBuild,
  waitForMembers,
} from './segments-membership-fixtures.ts';

// Which events mark their person for a segment re-check (migration 0057): only those of a kind some segment of the
// account reads.
useMembershipContext();

type Row = [personId: number, type: string, name: string | null];

/** The people marked by inserting these events (with the account's refreshes held, so no refresh takes the marks). */
async function markedBy(rows: Row[]): Promise<number[]> {
  const release = await holdSegmentRefreshes(ctx.services.pool, accountId);
  try {
    await sql`delete from segment_dirty_people where account_id = ${accountId}`.execute(ctx.services.db);
    await sql`insert into events (account_id, person_id, type, name, source)
      select ${accountId}::bigint, r.person_id, r.type, r.name, 'api'
      from json_to_recordset(${JSON.stringify(rows.map(([personId, type, name]) => ({ person_id: personId, type, name })))}::json)
        as r(person_id bigint, type text, name text)`.execute(ctx.services.db);
    const { rows: marked } = await sql<{
      id: string;
    }>`select distinct person_id as id from segment_dirty_people
      where account_id = ${accountId} order by 1`.execute(ctx.services.db);
    return marked.map((m) => Number(m.id));
  } finally {
    await release();
  }
}

describe('segment marks of events', () => {
  it('marks a person for an event only when a segment of the account reads that kind of event', async () => {
    const p = await Promise.all(Array.from({ length: 9 }, () => addPerson({})));
    const ids = p.map((person) => person.id);
    const events: Row[] = [
      [ids[0]!, 'track', 'Signed in'],
      [ids[1]!, 'track', 'Order completed'],
      [ids[2]!, 'page', null],
      [ids[3]!, 'form', 'Contact us'],
      [ids[4]!, 'email', 'sent'],
      [ids[5]!, 'email', 'opened'],
      [ids[6]!, 'email', 'delivered'],
      [ids[7]!, 'sms', 'sent'],
      [ids[8]!, 'segment', 'entered'],
    ];
    // The automatic segments alone: Engaged and Need some love read opens and clicks; a kind no condition can read
    // (sms) marks as before; a segment entry never marks.
    expect(await markedBy(events)).toEqual([ids[5]!, ids[7]!].sort((a, b) => a - b));

    // Segments of the account's own that read a tracked event by name, page views, forms and sends.
    for (const [name, condition] of [
      ['Ordered (event marks)', { type: 'event', name: 'Order completed' }],
      ['Saw pricing (event marks)', { type: 'pageVisited', url: '/pricing' }],
      ['Any form (event marks)', { type: 'formSubmitted' }],
      ['Was sent (event marks)', { type: 'emailActivity', activity: 'sent' }],
    ] as const)
      await waitForFirstBuild((await createSegment(name, [condition as never])).id);
    expect(await markedBy(events)).toEqual(
      [ids[1]!, ids[2]!, ids[3]!, ids[4]!, ids[5]!, ids[7]!].sort((a, b) => a - b),
    );
  });

  it('still follows an event that a segment reads into its members', async () => {
    const segment = await createSegment('Started checkout (event marks)', [
      { type: 'event', name: 'Checkout started' } as never,
    ]);
    await waitForFirstBuild(segment.id);
    const person = await addPerson({});
    const before = await members(segment.id);
    await sql`insert into events (account_id, person_id, type, name) values
      (${accountId}, ${person.id}, 'track', 'Signed in'), (${accountId}, ${person.id}, 'track', 'Checkout started')`.execute(
      ctx.services.db,
    );
    await waitForMembers(segment.id, [...before.filter((id) => id !== person.id), person.id]);
  });
});
