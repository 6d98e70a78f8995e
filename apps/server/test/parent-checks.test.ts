import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { waitingOnALock } from './lock-waits.ts';

/**
 * Events (migration 0040), segment members, flow runs and deliveries (migration 0041) check their parent (account,
 * segment, flow, account) once a statement instead of through a foreign key checked row by row. These tests hold
 * the statement checks to what the keys guaranteed: the key's error for a missing parent, no move to another
 * parent, the parent's delete taking its rows (those of an insert under way included), and an insert after the
 * parent's delete failing.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

type Query = { query: PoolClient['query'] };

interface Kind {
  child: string;
  parent: string;
  constraint: string;
  /** The key's columns as the error names them. */
  columns: string;
  /** A new parent in the account (the account itself for deliveries). */
  parentIn(accountId: number): Promise<number>;
  /** Insert one child row a parent each, in one statement. */
  insert(db: Query, accountId: number, parents: number[]): Promise<unknown>;
  /** The child rows that name the parent. */
  count(accountId: number, parent: number): Promise<number>;
  /** An update that moves the account's rows to another parent. */
  move(db: Query, accountId: number, from: number, to: number): Promise<unknown>;
  deleteParent(db: Query, accountId: number, parent: number): Promise<unknown>;
}

const number = async (text: string, values: unknown[]) =>
  Number((await ctx.database.pool.query<{ n: string }>(text, values)).rows[0]!.n);
let person = 7_000_000;

/** A kind whose parent is the account: each parent's row is a row of that account. */
function ofAccount(child: string, constraint: string, insert: string, checked: string): Kind {
  return {
    child,
    parent: 'accounts',
    constraint,
    columns: 'account_id',
    parentIn: async () => (await registerUser(ctx.app)).account.accountId as number,
    insert: (db, _accountId, parents) => db.query(insert, [parents]),
    count: (_accountId, parent) =>
      number(`select count(*) as n from ${child} where account_id = $1 and ${checked}`, [parent]),
    move: (db, _accountId, from, to) =>
      db.query(`update ${child} set account_id = $2 where account_id = $1 and ${checked}`, [from, to]),
    deleteParent: (db, _accountId, parent) => db.query('delete from accounts where id = $1', [parent]),
  };
}

/** A kind whose parent belongs to an account (key: account_id and `column`); each row is a person's. */
function inAccount(child: string, parent: string, column: string, create: string): Kind {
  return {
    child,
    parent,
    constraint: `${child}_account_id_${column}_fkey`,
    columns: `account_id, ${column}`,
    parentIn: (accountId) => number(create, [accountId]),
    insert: (db, accountId, parents) =>
      db.query(
        `insert into ${child} (account_id, ${column}, person_id) select $1, p, $3 + o from unnest($2::bigint[]) with ordinality as x(p, o)`,
        [accountId, parents, (person += 10)],
      ),
    count: (accountId, of) =>
      number(`select count(*) as n from ${child} where account_id = $1 and ${column} = $2`, [accountId, of]),
    move: (db, accountId, from, to) =>
      db.query(`update ${child} set ${column} = $3 where account_id = $1 and ${column} = $2`, [
        accountId,
        from,
        to,
      ]),
    deleteParent: (db, accountId, of) =>
      db.query(`delete from ${parent} where account_id = $1 and id = $2`, [accountId, of]),
  };
}

const kinds: Kind[] = [
  ofAccount(
    'events',
    'events_account_id_fkey',
    `insert into events (account_id, type, name, source) select a, 'track', 'checked', 'api' from unnest($1::bigint[]) a`,
    `name = 'checked'`,
  ),
  inAccount(
    'segment_members',
    'segments',
    'segment_id',
    `insert into segments (account_id, name) values ($1, 'checked') returning id as n`,
  ),
  inAccount('flow_runs', 'flows', 'flow_id', 'insert into flows (account_id) values ($1) returning id as n'),
  ofAccount(
    'deliveries',
    'deliveries_account_id_fkey',
    `insert into deliveries (account_id, source_kind, source_id, email_id, to_address) select a, 'broadcast', 1, 1, 'checked@example.com' from unnest($1::bigint[]) a`,
    `to_address = 'checked@example.com'`,
  ),
];

describe.each(kinds)('$child: its $parent checked once a statement', (kind) => {
  let accountId: number;
  beforeAll(async () => {
    accountId = (await registerUser(ctx.app)).account.accountId as number;
  });

  it("refuses a statement naming a missing parent with the key's error and writes none of its rows", async () => {
    const parent = await kind.parentIn(accountId);
    const missing = parent + 1_000_000;
    const error = await kind.insert(ctx.database.pool, accountId, [parent, missing]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: '23503', constraint: kind.constraint, table: kind.child });
    const key = kind.columns === 'account_id' ? `${missing}` : `${accountId}, ${missing}`;
    expect((error as { detail?: string }).detail).toBe(
      `Key (${kind.columns})=(${key}) is not present in table "${kind.parent}".`,
    );
    expect(await kind.count(accountId, parent)).toBe(0);

    await kind.insert(ctx.database.pool, accountId, [parent, parent]);
    expect(await kind.count(accountId, parent)).toBe(2);
  });

  it('refuses to move a row to another parent, existing or not', async () => {
    const parent = await kind.parentIn(accountId);
    const other = await kind.parentIn(accountId);
    await kind.insert(ctx.database.pool, accountId, [parent]);
    await expect(kind.move(ctx.database.pool, accountId, parent, other)).rejects.toMatchObject({
      code: '23503',
      table: kind.child,
    });
    await expect(kind.move(ctx.database.pool, accountId, parent, other + 1_000_000)).rejects.toMatchObject({
      code: '23503',
    });
    expect(await kind.count(accountId, parent)).toBe(1);
    expect(await kind.count(accountId, other)).toBe(0);
  });

  it("deletes a parent's rows with it, those of an insert under way included; an insert after the delete fails", async () => {
    const parent = await kind.parentIn(accountId);
    const kept = await kind.parentIn(accountId);
    await kind.insert(ctx.database.pool, accountId, [parent, kept]);

    // An insert whose transaction is open when the parent is deleted: the delete waits for it, then takes its rows.
    const writer = await ctx.database.pool.connect();
    try {
      await writer.query('begin');
      await kind.insert(writer, accountId, [parent]);
      let deletedAt = 0;
      const deleted = kind
        .deleteParent(ctx.database.pool, accountId, parent)
        .then(() => (deletedAt = Date.now()));
      await waitingOnALock(ctx.database.pool, 'delete from');
      expect(deletedAt).toBe(0);
      await writer.query('commit');
      await deleted;
    } finally {
      writer.release();
    }
    expect(await kind.count(accountId, parent)).toBe(0);
    expect(await kind.count(accountId, kept)).toBe(1);

    // A parent deleted by a transaction still open: the insert waits for it, and fails once it commits.
    const last = await kind.parentIn(accountId);
    const deleter = await ctx.database.pool.connect();
    try {
      await deleter.query('begin');
      await kind.deleteParent(deleter, accountId, last);
      const late = kind.insert(ctx.database.pool, accountId, [last]).then(
        () => null,
        (error: { code?: string }) => error.code,
      );
      await waitingOnALock(ctx.database.pool, `insert into ${kind.child}`);
      await deleter.query('commit');
      expect(await late).toBe('23503');
    } finally {
      deleter.release();
    }
    expect(await kind.count(accountId, last)).toBe(0);
  });
});

it("an account's delete takes its segments' members and its flows' runs through the chain of deletes", async () => {
  const accountId = (await registerUser(ctx.app)).account.accountId as number;
  const [segments, flows, deliveries] = [kinds[1]!, kinds[2]!, kinds[3]!];
  const segment = await segments.parentIn(accountId);
  const flow = await flows.parentIn(accountId);
  await segments.insert(ctx.database.pool, accountId, [segment, segment]);
  await flows.insert(ctx.database.pool, accountId, [flow]);
  await deliveries.insert(ctx.database.pool, accountId, [accountId]);
  await ctx.database.pool.query('delete from accounts where id = $1', [accountId]);
  expect(await segments.count(accountId, segment)).toBe(0);
  expect(await flows.count(accountId, flow)).toBe(0);
  expect(await deliveries.count(accountId, accountId)).toBe(0);
});

it("consent records are held by their person's key alone (migration 0059): what the account key held still holds", async () => {
  const { pool } = ctx.database;
  const [a, b] = [
    (await registerUser(ctx.app)).account.accountId as number,
    (await registerUser(ctx.app)).account.accountId as number,
  ];
  const personOf = (accountId: number) =>
    number(`insert into people (account_id, email) values ($1, $2) returning id as n`, [
      accountId,
      `consent-key-${accountId}-${Date.now()}@example.com`,
    ]);
  const record = (accountId: number, personId: number) =>
    pool.query(
      `insert into consent_records (account_id, person_id, action, source) values ($1, $2, 'subscribe', 'import')`,
      [accountId, personId],
    );
  const [pa, pb] = [await personOf(a), await personOf(b)];
  await record(a, pa);
  // Another account's person, and an account that does not exist, are refused by the person's key.
  for (const [accountId, personId] of [
    [a, pb],
    [a + 1_000_000, pa],
  ] as const)
    await expect(record(accountId, personId)).rejects.toMatchObject({
      code: '23503',
      constraint: 'consent_records_account_id_person_id_fkey',
    });
  await expect(
    pool.query('update consent_records set account_id = $2 where account_id = $1', [a, b]),
  ).rejects.toMatchObject({ code: '23503' });
  // The account's delete takes its people, and their records with them.
  await pool.query('delete from accounts where id = $1', [a]);
  expect(await number('select count(*) as n from consent_records where account_id = $1', [a])).toBe(0);
  const { rows } = await pool.query<{ name: string }>(
    `select conname as name from pg_constraint where conrelid = 'consent_records'::regclass and contype = 'f' order by 1`,
  );
  expect(rows.map((r) => r.name)).toEqual(['consent_records_account_id_person_id_fkey']);
});
