import { sendingMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { recipientLinks, recipientToken } from '../src/features/preferences/preference-links.ts';
import { mayReceive } from '../src/features/suppressions/recipient-rule.ts';
import { sealToken } from '../src/lib/sealed-tokens.ts';
import { addMember } from './email-helpers.ts';
import { Client, registerUser } from './helpers.ts';
import { accountOf, addPerson, ctx, person, smtp, useSuppressionsContext } from './suppressions-fixtures.ts';

useSuppressionsContext();

const anonymous = () => new Client(ctx.app, undefined);

describe('communication categories', () => {
  it('starts with a marketing default and a transactional category; creates, renames, archives, moves the default', async () => {
    const owner = await registerUser(ctx.app);
    const { client } = owner;
    const start = (await client.get('/v1/settings/communication-categories')).body.categories;
    expect(
      start.map(
        (c: { name: string; type: string; isDefault: boolean }) => `${c.name}:${c.type}:${c.isDefault}`,
      ),
    ).toEqual(['Newsletter:marketing:true', 'Account notices:transactional:false']);
    const created = await client.post('/v1/settings/communication-categories', {
      name: ' Product updates ',
      description: 'What is new',
    });
    expect(created.status).toBe(201);
    expect(created.body.category).toMatchObject({
      name: 'Product updates',
      type: 'marketing',
      isDefault: false,
      isArchived: false,
      accountId: accountOf(owner),
    });
    const id = created.body.category.id;
    expect(
      (await client.post('/v1/settings/communication-categories', { name: 'product UPDATES' })).status,
    ).toBe(409);
    expect((await client.post('/v1/settings/communication-categories', { name: '' })).body.message).toBe(
      sendingMessages.categoryNameNeeded,
    );
    expect(
      (await client.post('/v1/settings/communication-categories', { name: 'x', type: 'other' })).status,
    ).toBe(400);

    const renamed = await client.patch(`/v1/settings/communication-categories/${id}`, {
      name: 'Releases',
      isDefault: true,
    });
    expect(renamed.body).toMatchObject({
      message: sendingMessages.categoryUpdated,
      category: { name: 'Releases', isDefault: true },
    });
    const newsletter = start[0].id;
    expect(
      (await client.get('/v1/settings/communication-categories')).body.categories.filter(
        (c: { isDefault: boolean }) => c.isDefault,
      ),
    ).toHaveLength(1);
    expect(
      (await client.patch(`/v1/settings/communication-categories/${id}`, { isArchived: true })).body.message,
    ).toBe(sendingMessages.defaultCategoryArchived);
    expect(
      (await client.patch(`/v1/settings/communication-categories/${newsletter}`, { isArchived: true })).body
        .category.isArchived,
    ).toBe(true);
    expect(
      (await client.patch(`/v1/settings/communication-categories/${newsletter}`, { isDefault: true })).body
        .message,
    ).toBe(sendingMessages.archivedCategoryDefault);
    expect((await client.patch('/v1/settings/communication-categories/999999', { name: 'x' })).status).toBe(
      404,
    );

    const email = await client.post('/v1/emails', {
      subject: 'Hi',
      fromEmail: 'a@example.com',
      categoryId: id,
    });
    expect(email.body.email.categoryId).toBe(id);
    expect(
      (await client.post('/v1/emails', { subject: 'Hi', fromEmail: 'a@example.com', categoryId: 999999 }))
        .body.message,
    ).toBe(sendingMessages.categoryNotFound);
    const counts = (await client.get('/v1/settings/communication-categories/counts')).body.counts;
    expect(counts.find((c: { id: number }) => c.id === id)).toMatchObject({
      emails: 1,
      optedIn: 0,
      optedOut: 0,
    });

    const reader = await addMember(ctx, smtp, owner, ['emails:read']);
    expect((await reader.get('/v1/settings/communication-categories')).status).toBe(200);
    expect((await reader.post('/v1/settings/communication-categories', { name: 'Mine' })).status).toBe(403);
    const stranger = await registerUser(ctx.app);
    expect(
      (await stranger.client.patch(`/v1/settings/communication-categories/${id}`, { name: 'Stolen' })).status,
    ).toBe(404);
    expect(
      (
        await stranger.client.post('/v1/emails', {
          subject: 'Hi',
          fromEmail: 'a@example.com',
          categoryId: id,
        })
      ).status,
    ).toBe(400);
  });
});

describe('preference centre and unsubscribe', () => {
  it('shows and saves choices per category, refuses foreign and transactional ones, and unsubscribes from all', async () => {
    const owner = await registerUser(ctx.app);
    const ann = await addPerson(owner);
    const categories = (await owner.client.get('/v1/settings/communication-categories')).body.categories;
    const [newsletter, notices] = categories as { id: number }[];
    const token = recipientToken(ctx.services.secret, {
      accountId: accountOf(owner),
      personId: ann.id,
      categoryId: newsletter!.id,
      source: 'email:100',
    });
    const visitor = anonymous();
    const got = await visitor.get(`/v1/communication-preferences?token=${token}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      categoryId: newsletter!.id,
      person: { email: ann.email },
      unsubscribedFromAll: false,
      accountId: accountOf(owner),
    });
    expect(got.body.categoriesForPerson).toEqual({
      [newsletter!.id]: 'unspecified',
      [notices!.id]: 'unspecified',
    });

    expect(
      (await visitor.post(`/v1/communication-preferences?token=${token}`, { [newsletter!.id]: 'optOut' }))
        .status,
    ).toBe(204);
    expect(
      (await visitor.get(`/v1/communication-preferences?token=${token}`)).body.categoriesForPerson[
        newsletter!.id
      ],
    ).toBe('optOut');
    expect(
      await mayReceive(ctx.services.db, accountOf(owner), ann.id, { id: newsletter!.id, type: 'marketing' }),
    ).toBe(false);
    expect(
      await mayReceive(ctx.services.db, accountOf(owner), ann.id, { id: notices!.id, type: 'transactional' }),
    ).toBe(true);

    const stranger = await registerUser(ctx.app);
    const foreign = (await stranger.client.get('/v1/settings/communication-categories')).body.categories[0]
      .id;
    const refused = await visitor.post(`/v1/communication-preferences?token=${token}`, {
      [newsletter!.id]: 'optIn',
      [foreign]: 'optOut',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(sendingMessages.unknownCategory(String(foreign)));
    expect(
      (await visitor.get(`/v1/communication-preferences?token=${token}`)).body.categoriesForPerson[
        newsletter!.id
      ],
    ).toBe('optOut');
    expect(
      (await visitor.post(`/v1/communication-preferences?token=${token}`, { [notices!.id]: 'optOut' }))
        .status,
    ).toBe(400);
    expect(
      (await visitor.post(`/v1/communication-preferences?token=${token}`, { [newsletter!.id]: 'maybe' }))
        .status,
    ).toBe(400);

    expect((await visitor.post(`/v1/communication-preferences/all?token=${token}`)).status).toBe(204);
    expect((await visitor.get(`/v1/communication-preferences?token=${token}`)).body.unsubscribedFromAll).toBe(
      true,
    );
    expect(await person(owner, ann.id)).toMatchObject({
      unsubscribed: true,
      unsubscribeReason: 'unsubscribed',
    });
    expect(
      await mayReceive(ctx.services.db, accountOf(owner), ann.id, { id: notices!.id, type: 'transactional' }),
    ).toBe(true);
    // Opting in again lifts the unsubscribe.
    expect(
      (await visitor.post(`/v1/communication-preferences?token=${token}`, { [newsletter!.id]: 'optIn' }))
        .status,
    ).toBe(204);
    expect(await person(owner, ann.id)).toMatchObject({ unsubscribed: false });
    expect(
      await mayReceive(ctx.services.db, accountOf(owner), ann.id, { id: newsletter!.id, type: 'marketing' }),
    ).toBe(true);
  });

  it('one-click POST (RFC 8058) and the link unsubscribe at once, record one unsubscribed event, and refuse bad tokens', async () => {
    const owner = await registerUser(ctx.app);
    const ann = await addPerson(owner);
    const links = recipientLinks(ctx.services, {
      accountId: accountOf(owner),
      personId: ann.id,
      source: 'broadcast:7',
    });
    const url = new URL(links.unsubscribeUrl);
    const token = url.searchParams.get('token')!;
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain(`"p":${ann.id}`);

    // A mail client: form-encoded body, no cookie, no Origin.
    const oneClick = await anonymous().request('POST', `${url.pathname}${url.search}`, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      origin: null,
    });
    expect(oneClick.status).toBe(200);
    expect(oneClick.body.message).toBe(sendingMessages.unsubscribed);
    expect(await person(owner, ann.id)).toMatchObject({
      unsubscribed: true,
      unsubscribeReason: 'unsubscribed',
    });
    const again = await anonymous().post(`/v1/unsubscribe?token=${token}`);
    expect(again.status).toBe(200);
    const events = await withAccount(ctx.services.db, accountOf(owner), (db) =>
      db
        .selectFrom('events')
        .select(['name', 'data'])
        .where('personId', '=', ann.id)
        .where('type', '=', 'email')
        .execute(),
    );
    expect(events).toEqual([{ name: 'unsubscribed', data: { broadcastId: 7, via: 'one-click' } }]);
    const suppression = (await owner.client.get('/v1/suppressions')).body.suppressions[0];
    expect(suppression).toMatchObject({ email: ann.email, reason: 'unsubscribed', source: 'one-click' });

    const ben = await addPerson(owner);
    const benToken = recipientToken(ctx.services.secret, { accountId: accountOf(owner), personId: ben.id });
    const viaLink = await anonymous().post(`/v1/unsubscribe?token=${benToken}`);
    expect(viaLink.body).toMatchObject({ message: sendingMessages.unsubscribed });
    expect(await person(owner, ben.id)).toMatchObject({ unsubscribed: true });

    const expired = sealToken(
      { a: accountOf(owner), p: ben.id },
      ctx.services.secret,
      'preferences',
      60,
      Date.now() - 3600_000,
    );
    const forged = `${benToken.slice(0, 20)}${benToken[20] === 'A' ? 'B' : 'A'}${benToken.slice(21)}`;
    const wrongKind = sealToken(
      { a: accountOf(owner), p: ben.id },
      ctx.services.secret,
      'sender-verification',
      600,
    );
    for (const bad of [expired, forged, wrongKind, 'x', '']) {
      const res = await anonymous().get(`/v1/communication-preferences?token=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.message).toBe(sendingMessages.linkInvalid);
      expect(
        (
          await anonymous().request('POST', `/public/unsubscribe?token=${bad}`, {
            rawBody: 'List-Unsubscribe=One-Click',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            origin: null,
          })
        ).status,
      ).toBe(400);
    }
    // A person deleted since: the link no longer works.
    await owner.client.request('DELETE', `/v1/people?force=true&id=${ben.id}`);
    expect((await anonymous().post(`/v1/unsubscribe?token=${benToken}`)).status).toBe(400);
  });
});
