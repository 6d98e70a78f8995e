import {
  bodyIdMismatch,
  emailMessages,
  segmentMessages,
  type Broadcast,
  type Email,
  type Segment,
} from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { accountRows } from './account-rows.ts';
import { createTestContext, registerUser, type Client, type TestContext } from './helpers.ts';

/**
 * Broadcasts, emails and segments sent whole, as a client that serialises its state sends them (docs/api.md,
 * "Serialized entity bodies"); flows, steps and links are in serialized-flows.test.ts.
 */
let ctx: TestContext;
let client: Client;
let accountId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  const owner = await registerUser(ctx.app);
  client = owner.client;
  accountId = owner.account.accountId as number;
});
afterAll(() => ctx.close());

const rows = () =>
  accountRows(ctx, accountId, {
    broadcasts: 'broadcasts',
    emails: 'emails',
    segments: 'segments',
    folders: 'folders',
  });

/** 400 with this message, and not a row of the account changed. */
async function expectRefused(
  request: Promise<{ status: number; body: { message: string } }>,
  message: string | RegExp,
) {
  const before = await rows();
  const res = await request;
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  if (typeof message === 'string') expect(res.body.message).toBe(message);
  else expect(res.body.message).toMatch(message);
  expect(await rows()).toEqual(before);
}

async function email(overrides: Record<string, unknown> = {}): Promise<Email> {
  const res = await client.post('/v1/emails', newEmail(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.email;
}

describe('broadcasts sent whole', () => {
  /** A broadcast as a client holds it: the spec's fields, including the ones the server decides. */
  const clientBroadcast = (overrides: Record<string, unknown> = {}) => ({
    id: null,
    name: 'Spring news',
    status: 'sent',
    emailId: null,
    sendAt: null,
    time: null,
    createdBy: 99,
    createdAt: '2020-01-01T00:00:00Z',
    updatedAt: null,
    integrationId: 'flow-7',
    ...overrides,
  });

  it('POST takes the entity whole and makes a draft of it', async () => {
    const { id: emailId } = await email();
    // The sender is the signed-in member, whatever the body says (a member id other than the owner's).
    const member = await ctx.services.db
      .selectFrom('teamMembers')
      .select('id')
      .where('accountId', '=', accountId)
      .executeTakeFirstOrThrow();
    const res = await client.post(
      '/v1/broadcasts',
      clientBroadcast({
        emailId,
        stats: { sent: 5 },
        archived: true,
        pausedAt: 'x',
        createdBy: member.id + 1,
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.item).toMatchObject({
      name: 'Spring news',
      status: 'draft',
      emailId,
      integrationId: null,
      archived: false,
      pausedAt: null,
    });
    expect(res.body.item.createdBy).toBe(member.id);
  });

  it('PATCH takes the item back whole, with the changes made', async () => {
    const created = (await client.post('/v1/broadcasts', { name: 'Whole' })).body.item as Broadcast;
    const read = (await client.get(`/v1/broadcasts/${created.id}`)).body.item as Broadcast;
    const res = await client.patch(`/v1/broadcasts/${read.id}`, {
      ...read,
      name: 'Whole, renamed',
      status: 'sent',
      integrationId: 'x',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.item).toMatchObject({
      id: read.id,
      name: 'Whole, renamed',
      status: 'draft',
      integrationId: null,
    });
  });

  it('refuses another id in a PATCH, and keys outside the entity', async () => {
    const read = (await client.post('/v1/broadcasts', { name: 'Kept' })).body.item as Broadcast;
    await expectRefused(
      client.patch(`/v1/broadcasts/${read.id}`, { ...read, id: read.id + 1, name: 'Changed' }),
      bodyIdMismatch('broadcast'),
    );
    await expectRefused(
      client.patch(`/v1/broadcasts/${read.id}`, { ...read, name: 'Changed', colour: 'red' }),
      'Unrecognized key: "colour"',
    );
    await expectRefused(
      client.post('/v1/broadcasts', clientBroadcast({ subject: 'Hi' })),
      'Unrecognized key: "subject"',
    );
    await expectRefused(
      client.patch(`/v1/broadcasts/${read.id}`, { ...read, emailId: 'seven' }),
      /^emailId: /,
    );
  });
});

describe('emails sent whole', () => {
  const editor = { type: 'richtext', state: { type: 'doc', content: [] }, html: '<p>Hi</p>' };
  /** An email as a client holds it: every field of the spec's Email, the server's included. */
  const clientEmail = (overrides: Record<string, unknown> = {}) => ({
    ...newEmail({ html: '<p>Hi</p>' }),
    id: -1,
    type: 'HTML',
    editor,
    archived: false,
    stats: { sent: 3, opened: 1, clicked: 0, unsubscribed: 0, bounced: 0 },
    createdAt: null,
    updatedAt: null,
    ...overrides,
  });

  it("POST takes the entity whole; id, stats and archived are the server's", async () => {
    const res = await client.post('/v1/emails', clientEmail({ archived: true, editorType: 'richtext' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.email).toMatchObject({
      name: 'Welcome',
      type: 'HTML',
      editor,
      archived: false,
      stats: { sent: 0, opened: 0 },
    });
    expect(res.body.email.id).toBeGreaterThan(0);
  });

  it('PATCH takes the email back whole, with the changes made', async () => {
    const read = (await client.get(`/v1/emails/${(await email()).id}`)).body.email as Email;
    const res = await client.patch(`/v1/emails/${read.id}`, {
      ...read,
      subject: 'Changed subject',
      stats: null,
      editorType: 'html',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.email).toMatchObject({ id: read.id, subject: 'Changed subject', html: read.html });
  });

  it('refuses another id, a type other than HTML, and keys outside the entity', async () => {
    const read = (await client.get(`/v1/emails/${(await email()).id}`)).body.email as Email;
    await expectRefused(
      client.patch(`/v1/emails/${read.id}`, { ...read, id: read.id + 1, subject: 'Changed' }),
      emailMessages.idMismatch,
    );
    await expectRefused(client.patch(`/v1/emails/${read.id}`, { ...read, type: 'text' }), /^type: /);
    await expectRefused(
      client.patch(`/v1/emails/${read.id}`, { ...read, subject: 'Changed', opens: 4 }),
      'Unrecognized key: "opens"',
    );
    await expectRefused(client.post('/v1/emails', clientEmail({ type: 'text' })), /^type: /);
    await expectRefused(
      client.post('/v1/emails', clientEmail({ template: 'x' })),
      'Unrecognized key: "template"',
    );
    await expectRefused(
      client.post('/v1/emails', clientEmail({ subject: undefined })),
      emailMessages.subjectNeeded,
    );
  });
});

describe('segments sent whole', () => {
  const conditions = [{ type: 'tag', operator: 'has', tag: 'customer' }];
  /** The client-only people paging and preview a segment carries in the client. */
  const clientOnly = {
    people: [],
    page: 1,
    peopleIds: [4, 5],
    hasMore: false,
    sort: 'createdAt',
    order: 'desc',
    error: null,
    preview: { totalCount: 2 },
  };

  it("POST takes the segment whole; id and autoSegment are the server's", async () => {
    const res = await client.post('/v1/segments/', {
      id: 0,
      name: 'Customers',
      color: '#228be6',
      autoSegment: true,
      conditions,
      ...clientOnly,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.segment).toMatchObject({
      name: 'Customers',
      color: '#228be6',
      autoSegment: false,
      autoType: null,
      conditions,
    });
  });

  it('PATCH takes the segment back whole with its client-only fields', async () => {
    const created = (await client.post('/v1/segments/', { name: 'Regulars', conditions })).body
      .segment as Segment;
    const res = await client.patch(`/v1/segments/${created.id}`, {
      ...created,
      ...clientOnly,
      name: 'Regulars, renamed',
      color: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      message: segmentMessages.saved,
      segment: { id: created.id, name: 'Regulars, renamed', color: null, conditions },
    });
  });

  it('refuses another id, no name, and keys outside the entity', async () => {
    const created = (await client.post('/v1/segments/', { name: 'Steady', conditions })).body
      .segment as Segment;
    await expectRefused(
      client.patch(`/v1/segments/${created.id}`, { ...created, id: created.id + 1, name: 'Moved' }),
      bodyIdMismatch('segment'),
    );
    await expectRefused(
      client.patch(`/v1/segments/${created.id}`, { ...created, name: '  ' }),
      segmentMessages.nameRequired,
    );
    await expectRefused(
      client.patch(`/v1/segments/${created.id}`, { ...created, members: [1] }),
      'Unrecognized key: "members"',
    );
    await expectRefused(
      client.post('/v1/segments/', { color: '#228be6', conditions }),
      segmentMessages.nameRequired,
    );
    await expectRefused(
      client.post('/v1/segments/', { name: 'Typo', conditons: conditions }),
      'Unrecognized key: "conditons"',
    );
  });
});
