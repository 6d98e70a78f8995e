import { folderMessages, scopeIds } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const items = (folder: { childrenIds: { type: string; id: unknown }[] }) =>
  folder.childrenIds.filter((c) => c.type === 'item').map((c) => c.id);

describe('folders', () => {
  it('a root per type holds loose items; folders nest, move, recolour and reorder', async () => {
    const { client } = await registerUser(ctx.app);
    await client.post('/v1/tags-management', { tags: [{ tag: 'alpha' }, { tag: 'beta' }, { tag: 'gamma' }] });
    const first = await client.get('/v1/folders?folderType=tags');
    const root = first.body.folders.find((f: { root: boolean }) => f.root);
    expect(items(root)).toEqual(['alpha', 'beta', 'gamma']);

    const lifecycle = (await client.post('/v1/folders', { folderType: 'tags', color: '#4c6ef5' })).body
      .folder;
    expect(lifecycle).toMatchObject({
      name: folderMessages.defaultName,
      parentId: root.id,
      color: '#4c6ef5',
    });
    await client.patch(`/v1/folders/${lifecycle.id}`, {
      name: 'Lifecycle',
      childrenIds: [{ type: 'item', id: 'beta' }],
    });
    const inner = (
      await client.post('/v1/folders', { folderType: 'tags', name: 'Inner', parentId: lifecycle.id })
    ).body.folder;

    const tree = (await client.get('/v1/folders?folderType=tags')).body.folders;
    const byName = (name: string) => tree.find((f: { name: string }) => f.name === name);
    expect(items(tree.find((f: { root: boolean }) => f.root))).toEqual(['alpha', 'gamma']);
    expect(byName('Lifecycle').childrenIds).toEqual([
      { type: 'item', id: 'beta' },
      { type: 'folder', id: inner.id },
    ]);

    expect((await client.patch(`/v1/folders/${lifecycle.id}`, { parentId: inner.id })).status).toBe(400);
    expect((await client.patch(`/v1/folders/${root.id}`, { name: 'x' })).body.message).toBe(
      folderMessages.rootFolder,
    );
    expect((await client.patch(`/v1/folders/${lifecycle.id}`, { color: 'red' })).status).toBe(400);
    expect(
      (await client.patch(`/v1/folders/${lifecycle.id}`, { expanded: false })).body.folder.expanded,
    ).toBe(false);
    const segments = (await client.get('/v1/folders?folderType=segments')).body.folders;
    expect((await client.patch(`/v1/folders/${lifecycle.id}`, { parentId: segments[0].id })).status).toBe(
      400,
    );
  });

  it('deleting a tags folder deletes its tags (and from people) and its subfolders', async () => {
    const { client } = await registerUser(ctx.app);
    const person = (await client.post('/v1/people/', { email: uniqueEmail(), tags: 'old, keep' })).body.user
      .id;
    const folder = (await client.post('/v1/folders', { folderType: 'tags', name: 'Old' })).body.folder;
    const sub = (await client.post('/v1/folders', { folderType: 'tags', name: 'Sub', parentId: folder.id }))
      .body.folder;
    await client.patch(`/v1/folders/${folder.id}`, {
      childrenIds: [
        { type: 'item', id: 'old' },
        { type: 'folder', id: sub.id },
      ],
    });
    expect((await client.request('DELETE', `/v1/folders/${folder.id}`)).status).toBe(204);
    expect((await client.get('/v1/tags-management')).body.tags.map((t: { tag: string }) => t.tag)).toEqual([
      'keep',
    ]);
    expect((await client.get(`/v1/people/${person}`)).body.users[0].tags).toBe('keep');
    const names = (await client.get('/v1/folders?folderType=tags')).body.folders.map(
      (f: { name: string }) => f.name,
    );
    expect(names).not.toContain('Old');
    expect(names).not.toContain('Sub');
  });

  it('favorites are created on first use and toggle', async () => {
    const { client } = await registerUser(ctx.app);
    const added = await client.post('/v1/folders/favorites', {
      folderType: 'personFields',
      itemId: 'email',
      favorite: true,
    });
    expect(added.body.message).toBe(folderMessages.addedToFavorites);
    expect(added.body.folder).toMatchObject({
      autoFolderType: 'favorites',
      childrenIds: [{ type: 'item', id: 'email' }],
    });
    const removed = await client.post('/v1/folders/favorites', {
      folderType: 'personFields',
      itemId: 'email',
      favorite: false,
    });
    expect(removed.body.message).toBe(folderMessages.removedFromFavorites);
    expect(removed.body.folder.id).toBe(added.body.folder.id);
    expect(removed.body.folder.childrenIds).toEqual([]);
  });

  it('refuses unknown types, folders of other accounts, and deletes without the right scope', async () => {
    const a = await registerUser(ctx.app);
    const b = await registerUser(ctx.app);
    expect((await a.client.get('/v1/folders?folderType=contacts')).status).toBe(400);
    const folder = (await a.client.post('/v1/folders', { folderType: 'tags', name: 'Mine' })).body.folder;
    expect((await b.client.patch(`/v1/folders/${folder.id}`, { name: 'Theirs' })).status).toBe(404);
    expect((await b.client.request('DELETE', `/v1/folders/${folder.id}`)).status).toBe(404);
    const member = await registerUser(ctx.app);
    await a.client.post('/v1/team-members', {
      name: 'M',
      email: member.email,
      scopes: scopeIds.map((id) => ({ id, enabled: id === 'people:read' })),
    });
    await member.client.post(`/v1/accounts/${a.account.accountId}/switch`);
    expect((await member.client.request('DELETE', `/v1/folders/${folder.id}`)).status).toBe(403);
  });

  it('GET /v1/folders without folderType lists every folder of the account, of every kind', async () => {
    const { client } = await registerUser(ctx.app);
    await client.post('/v1/folders', { folderType: 'tags', name: 'Lifecycle' });
    await client.post('/v1/folders', { folderType: 'emails', name: 'Newsletters' });
    const all = await client.get('/v1/folders');
    expect(all.status).toBe(200);
    const kinds = new Set(all.body.folders.map((f: { folderType: string }) => f.folderType));
    expect(kinds).toEqual(new Set(['segments', 'emails', 'flows', 'personFields', 'broadcasts', 'tags']));
    expect(all.body.folders.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(['Lifecycle', 'Newsletters']),
    );
    const tags = await client.get('/v1/folders?folderType=tags');
    expect(tags.body.folders.every((f: { folderType: string }) => f.folderType === 'tags')).toBe(true);
    expect((await client.get('/v1/folders?folderType=contacts')).status).toBe(400);
    expect((await new Client(ctx.app).get('/v1/folders')).status).toBe(401);
  });

  it('POST /v1/folders/ takes the folder entity as the spec shows it, type folder included', async () => {
    const { client } = await registerUser(ctx.app);
    const entity = {
      id: 0,
      name: 'Spring',
      type: 'folder',
      folderType: 'emails',
      root: false,
      autoFolderType: null,
      childrenIds: [],
      expanded: true,
      color: '#4c6ef5',
    };
    const created = await client.post('/v1/folders/', entity);
    expect(created.status).toBe(201);
    expect(created.body.folder).toMatchObject({
      name: 'Spring',
      type: 'folder',
      folderType: 'emails',
      root: false,
      childrenIds: [],
      color: '#4c6ef5',
    });
    expect(created.body.folder.id).toBeGreaterThan(0);
    expect((await client.post('/v1/folders/', { ...entity, type: 'item' })).status).toBe(400);
    expect((await client.post('/v1/folders/', { ...entity, folderType: 'contacts' })).status).toBe(400);
    expect((await client.post('/v1/folders/', { ...entity, color: 'blue' })).body.message).toBe(
      'Colour must be like #aabbcc.',
    );
    const wrongKind = await client.post('/v1/folders/', { ...entity, folderType: 'contacts' });
    expect(wrongKind.body.message).toMatch(/^folderType: .*"segments"\|"emails"/);
    const wrongTypes = await client.post('/v1/folders/', { ...entity, name: 5, expanded: 'yes' });
    expect(wrongTypes.status).toBe(400);
    expect(wrongTypes.body.extra.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(['/name', '/expanded']),
    );
    expect((await client.post('/v1/folders/', { ...entity, typo: 1 })).status).toBe(400);
    // Without a trailing slash too, and with nothing but the kind: the spec's default name.
    const plain = await client.post('/v1/folders', { folderType: 'tags' });
    expect(plain.body.folder).toMatchObject({ name: 'Unnamed folder', folderType: 'tags', type: 'folder' });
  });
});
