import { broadcastMessages, emailMessages, type Broadcast } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { create, ctx, inAnHour, person, setup, useBroadcastsContext } from './broadcasts-fixtures.ts';

// Broadcasts as drafts: created, listed, edited, filed, archived, duplicated, and their audience counted (sending one
// and the refusals on the way are broadcasts-sending.test.ts).
useBroadcastsContext();

describe('broadcasts: create, list, edit', () => {
  it("creates 'My Broadcast' drafts, lists, reads and edits them; refuses unknown emails, segments and folders", async () => {
    const { client, emailId } = await setup();
    const plain = await create(client);
    expect(plain).toMatchObject({
      name: broadcastMessages.defaultName,
      status: 'draft',
      emailId: null,
      sendAt: null,
      time: null,
      audience: { type: 'all' },
      archived: false,
      integrationId: null,
    });
    expect(plain.stats).toEqual({ queued: 0, excluded: 0, sent: 0, failed: 0, pending: 0 });
    expect(plain.id).toBeGreaterThanOrEqual(100);
    const named = await create(client, {
      name: 'November news',
      emailId,
      audience: { type: 'tags', tags: ['vip'], excludeTags: ['churned'] },
    });
    expect(named).toMatchObject({
      name: 'November news',
      emailId,
      audience: { type: 'tags', tags: ['vip'], excludeTags: ['churned'] },
    });

    const list = await client.get('/v1/broadcasts');
    expect(list.status).toBe(200);
    expect(list.body.items.map((b: Broadcast) => b.id).sort()).toEqual([plain.id, named.id].sort());
    expect((await client.get(`/v1/broadcasts/${named.id}`)).body.item).toMatchObject({
      id: named.id,
      name: 'November news',
    });

    const edited = await client.patch(`/v1/broadcasts/${plain.id}`, {
      name: '',
      emailId,
      sendAt: inAnHour(),
      time: { type: 'account' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.item).toMatchObject({
      name: broadcastMessages.defaultName,
      emailId,
      time: { type: 'account' },
      status: 'draft',
    });
    // The item as it came back is a valid body.
    expect(
      (await client.patch(`/v1/broadcasts/${plain.id}`, { ...edited.body.item, name: 'Round trip' })).body
        .item.name,
    ).toBe('Round trip');

    expect((await client.patch(`/v1/broadcasts/${plain.id}`, { emailId: 999_999 })).body.message).toBe(
      emailMessages.notFound,
    );
    const badSegment = await client.patch(`/v1/broadcasts/${plain.id}`, {
      audience: { type: 'segments', segmentIds: [999_999] },
    });
    expect(badSegment.status).toBe(400);
    expect(badSegment.body.message).toBe('Segment 999999 does not exist.');
    expect(
      (await client.patch(`/v1/broadcasts/${plain.id}`, { audience: { type: 'segments', segmentIds: [] } }))
        .status,
    ).toBe(400);
    expect((await client.post('/v1/broadcasts', { name: 'x'.repeat(201) })).body.message).toBe(
      broadcastMessages.nameTooLong,
    );
    expect((await client.get('/v1/broadcasts/123456789')).status).toBe(404);
    expect((await client.patch('/v1/broadcasts/123456789', { name: 'x' })).body.message).toBe(
      broadcastMessages.notFound,
    );

    const emailsFolder = await client.post('/v1/folders/', { name: 'Mail', folderType: 'emails' });
    expect((await client.post('/v1/broadcasts', { folderId: emailsFolder.body.folder.id })).status).toBe(400);
    const folder = await client.post('/v1/folders/', { name: 'Campaigns', folderType: 'broadcasts' });
    const filed = await create(client, { folderId: folder.body.folder.id });
    const folders = await client.get('/v1/folders?folderType=broadcasts');
    const stored = folders.body.folders.find((f: { id: number }) => f.id === folder.body.folder.id);
    expect(stored.childrenIds).toContainEqual({ type: 'item', id: filed.id });
  });

  it('lists broadcasts in no folder under the root; deleting a folder archives its broadcasts (a scheduled one canceled, a sending one kept)', async () => {
    const { client, emailId } = await setup();
    await person(client, { firstName: 'Ann' });
    const loose = await create(client, { name: 'Loose' });
    const folder = (await client.post('/v1/folders/', { name: 'Autumn', folderType: 'broadcasts' })).body
      .folder as { id: number };
    const draft = await create(client, { folderId: folder.id });
    const scheduled = await create(client, { emailId, sendAt: inAnHour(), folderId: folder.id });
    await client.post(`/v1/broadcasts/${scheduled.id}/send`);
    const sending = await create(client, { emailId, folderId: folder.id });
    await ctx.services.db
      .updateTable('broadcasts')
      .set({ status: 'sending' })
      .where('id', '=', sending.id)
      .execute();
    const tree = (await client.get('/v1/folders?folderType=broadcasts')).body.folders as {
      root: boolean;
      childrenIds: unknown[];
    }[];
    expect(tree.find((f) => f.root)!.childrenIds).toContainEqual({ type: 'item', id: loose.id });
    expect(tree.find((f) => f.root)!.childrenIds).not.toContainEqual({ type: 'item', id: draft.id });

    expect((await client.request('DELETE', `/v1/folders/${folder.id}`)).status).toBeLessThan(300);
    const all = new Map(
      ((await client.get('/v1/broadcasts?archived=all')).body.items as Broadcast[]).map((b) => [b.id, b]),
    );
    expect(all.get(loose.id)).toMatchObject({ archived: false });
    expect(all.get(draft.id)).toMatchObject({ archived: true, status: 'draft' });
    expect(all.get(scheduled.id)).toMatchObject({ archived: true, status: 'canceled' });
    expect(all.get(sending.id)).toMatchObject({ archived: false, status: 'sending' });
  });

  it('archives with DELETE (a scheduled one is canceled; a sending one refuses) and lists archived ones when asked', async () => {
    const { client, emailId } = await setup();
    await person(client, { firstName: 'Ann' });
    const draft = await create(client, { name: 'Old news' });
    const archived = await client.request('DELETE', `/v1/broadcasts/${draft.id}`);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({
      item: { archived: true, status: 'draft' },
      message: broadcastMessages.archived,
    });
    expect((await client.get('/v1/broadcasts')).body.items).toEqual([]);
    expect((await client.get('/v1/broadcasts?archived=true')).body.items.map((b: Broadcast) => b.id)).toEqual(
      [draft.id],
    );
    expect((await client.get('/v1/broadcasts?archived=all')).body.items).toHaveLength(1);

    const scheduled = await create(client, { emailId, sendAt: inAnHour() });
    expect((await client.post(`/v1/broadcasts/${scheduled.id}/send`)).body.item.status).toBe('scheduled');
    expect((await client.request('DELETE', `/v1/broadcasts/${scheduled.id}`)).body.item).toMatchObject({
      archived: true,
      status: 'canceled',
    });

    const sending = await create(client, { emailId });
    await ctx.services.db
      .updateTable('broadcasts')
      .set({ status: 'sending' })
      .where('id', '=', sending.id)
      .execute();
    const refused = await client.request('DELETE', `/v1/broadcasts/${sending.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(broadcastMessages.cannotArchiveSending);
    const edit = await client.patch(`/v1/broadcasts/${sending.id}`, { name: 'Too late' });
    expect(edit.status).toBe(409);
    expect(edit.body.message).toBe(broadcastMessages.notEditable('Sending'));
    expect((await client.post(`/v1/broadcasts/${sending.id}/send`)).status).toBe(409);
  });

  it('duplicates into a new draft: name, email and audience kept; id, creator, times, sendAt and time not', async () => {
    const { client, emailId } = await setup();
    const source = await create(client, {
      name: 'Launch',
      emailId,
      audience: { type: 'all', excludeTags: ['staff'] },
      sendAt: inAnHour(),
      time: { type: 'account' },
    });
    await ctx.services.db
      .updateTable('broadcasts')
      .set({ status: 'sent', integrationId: 'flow-7', createdBy: null })
      .where('id', '=', source.id)
      .execute();
    const copy = await client.post(`/v1/broadcasts/${source.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body.message).toBe(broadcastMessages.duplicated);
    expect(copy.body.item).toMatchObject({
      name: 'Launch',
      emailId,
      audience: { type: 'all', excludeTags: ['staff'] },
      status: 'draft',
      sendAt: null,
      time: null,
      integrationId: null,
    });
    expect(copy.body.item.id).not.toBe(source.id);
    expect(copy.body.item.createdBy).not.toBeNull();
    expect((await client.post('/v1/broadcasts/123456789/duplicate')).status).toBe(404);
  });
});
describe('broadcasts: audience', () => {
  it('counts everyone, segments and tags minus exclusions; the suppressed count in total, not deliverable', async () => {
    const { client, emailId } = await setup();
    await person(client, { firstName: 'Ann', tags: ['vip'] });
    await person(client, { firstName: 'Ben', tags: ['vip', 'staff'] });
    const cy = await person(client, { firstName: 'Cy', tags: ['vip'] });
    await person(client, { firstName: 'Di' });
    await client.post('/v1/suppressions', { emails: [cy.email], reason: 'unsubscribed' });
    const vips = (
      await client.post('/v1/segments/', {
        name: 'VIPs',
        conditions: [{ type: 'tag', operator: 'has', tag: 'vip' }],
      })
    ).body.segment as { id: number };
    const staff = (
      await client.post('/v1/segments/', {
        name: 'Staff',
        conditions: [{ type: 'tag', operator: 'has', tag: 'staff' }],
      })
    ).body.segment as { id: number };
    const count = async (audience: unknown) => {
      const res = await client.post('/v1/broadcasts/audience-count', { audience, emailId });
      expect(res.status).toBe(200);
      // Nobody here waits to confirm a double opt-in (double-opt-in.test.ts counts them).
      const { pendingConfirmation, ...rest } = res.body;
      expect(pendingConfirmation).toBe(0);
      return rest;
    };
    expect(await count({ type: 'all' })).toEqual({ total: 4, deliverable: 3 });
    expect(await count({ type: 'segments', segmentIds: [vips.id] })).toEqual({ total: 3, deliverable: 2 });
    expect(await count({ type: 'segments', segmentIds: [vips.id], excludeSegmentIds: [staff.id] })).toEqual({
      total: 2,
      deliverable: 1,
    });
    expect(await count({ type: 'tags', tags: ['vip'], excludeTags: ['staff'] })).toEqual({
      total: 2,
      deliverable: 1,
    });
    expect(await count({ type: 'all', excludeTags: ['vip'] })).toEqual({ total: 1, deliverable: 1 });
    const unknown = await client.post('/v1/broadcasts/audience-count', {
      audience: { type: 'segments', segmentIds: [999_999] },
    });
    expect(unknown.status).toBe(400);
    expect(
      (await client.post('/v1/broadcasts/audience-count', { audience: { type: 'all' }, emailId: 999_999 }))
        .body.message,
    ).toBe(emailMessages.notFound);
  });
});
