import { emailMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, newEmail } from './email-helpers.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

describe('emails: create, read, change, archive', () => {
  it('creates with defaults, lists without content, reads one whole, saves changes', async () => {
    const { client } = await registerUser(ctx.app);
    const created = await client.post('/v1/emails', { subject: 'Hello', fromEmail: 'me@example.com' });
    expect(created.status).toBe(201);
    expect(created.body.email).toMatchObject({
      name: emailMessages.defaultName,
      subject: 'Hello',
      fromEmail: 'me@example.com',
      type: 'HTML',
      editor: { type: 'html', state: null, html: '' },
      archived: false,
      stats: { sent: 0, opened: 0, clicked: 0 },
    });
    const id = created.body.email.id;

    const list = await client.get('/v1/emails');
    expect(list.status).toBe(200);
    expect(list.body.emails).toHaveLength(1);
    expect(list.body.emails[0]).toMatchObject({ id, editorType: 'html', subject: 'Hello' });
    expect(list.body.emails[0]).not.toHaveProperty('html');

    const editor = { type: 'richtext', state: { type: 'doc', content: [] }, html: '<p>Hi</p>' };
    const saved = await client.patch(`/v1/emails/${id}`, {
      id,
      name: 'Onboarding 1',
      subject: 'Hi {{ person.firstName }}',
      html: '<p>Hi</p>',
      editor,
    });
    expect(saved.status).toBe(200);
    expect(saved.body.email).toMatchObject({
      name: 'Onboarding 1',
      subject: 'Hi {{ person.firstName }}',
      html: '<p>Hi</p>',
      editor,
    });
    const again = await client.get(`/v1/emails/${id}`);
    expect(again.body.email).toEqual(saved.body.email);
    // The entity as the client got it can be sent back whole.
    expect((await client.patch(`/v1/emails/${id}`, again.body.email)).status).toBe(200);
  });

  it("refuses bad input with the spec's messages and changes nothing", async () => {
    const { client } = await registerUser(ctx.app);
    expect((await client.post('/v1/emails', { fromEmail: 'me@example.com' })).body.message).toBe(
      emailMessages.subjectNeeded,
    );
    expect(
      (await client.post('/v1/emails', { subject: '  ', fromEmail: 'me@example.com' })).body.message,
    ).toBe(emailMessages.subjectNeeded);
    expect((await client.post('/v1/emails', { subject: 'Hi' })).body.message).toBe(
      emailMessages.fromEmailNeeded,
    );
    expect((await client.post('/v1/emails', { subject: 'Hi', fromEmail: 'not an address' })).status).toBe(
      400,
    );
    const { email } = (await client.post('/v1/emails', newEmail())).body;

    const cases: [unknown, string][] = [
      [{ subject: '' }, emailMessages.subjectNeeded],
      [{ subject: null }, emailMessages.subjectNeeded],
      [{ fromEmail: '' }, emailMessages.fromEmailNeeded],
      [{ html: '<p>x</p>' }, emailMessages.missingContent],
      [{ editor: { type: 'html', state: null, html: '<p>x</p>' } }, emailMessages.missingContent],
      [{ id: email.id + 1, subject: 'x' }, emailMessages.idMismatch],
    ];
    for (const [body, message] of cases) {
      const res = await client.patch(`/v1/emails/${email.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toBe(message);
    }
    for (const bad of ['abc', '0', '-1', '1.5']) {
      const res = await client.patch(`/v1/emails/${bad}`, { subject: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(emailMessages.missingId);
    }
    expect((await client.patch('/v1/emails/999999', { subject: 'x' })).status).toBe(404);
    expect((await client.get('/v1/emails/999999')).body.message).toBe(emailMessages.notFound);

    // A merge tag that does not parse, or an unknown filter: 422 naming the part and the line.
    const syntax = await client.patch(`/v1/emails/${email.id}`, {
      html: '<p>a</p>\n<p>b</p>\n<p>{{ person.firstName </p>',
      editor: { type: 'html', state: null, html: '' },
    });
    expect(syntax.status).toBe(422);
    expect(syntax.body.message).toMatch(/line 3/);
    const filter = await client.patch(`/v1/emails/${email.id}`, {
      subject: 'Hi {{ person.firstName | shout }}',
    });
    expect(filter.status).toBe(422);
    expect(filter.body.message).toMatch(/subject/);
    expect((await client.post('/v1/emails', newEmail({ html: '{% include "secrets" %}' }))).status).toBe(422);

    // 5 MB of HTML: refused before it is read whole.
    const huge = await client.patch(`/v1/emails/${email.id}`, {
      html: 'x'.repeat(5_000_000),
      editor: { type: 'html', state: null, html: '' },
    });
    expect(huge.status).toBe(413);
    const tooLong = await client.patch(`/v1/emails/${email.id}`, {
      html: 'x'.repeat(1_000_001),
      editor: { type: 'html', state: null, html: '' },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toBe(emailMessages.htmlTooLarge);

    expect((await client.get(`/v1/emails/${email.id}`)).body.email).toEqual(email);
  });

  it('keeps scripts as authored (the app only shows them in a sandboxed frame)', async () => {
    const { client } = await registerUser(ctx.app);
    const html =
      '<p onclick="steal()">Hi</p><script>alert(1)</script><iframe src="https://example.com"></iframe>';
    const { email } = (await client.post('/v1/emails', newEmail({ html }))).body;
    expect((await client.get(`/v1/emails/${email.id}`)).body.email.html).toBe(html);
  });

  it('archives: gone from the list, listed when asked, restorable', async () => {
    const { client } = await registerUser(ctx.app);
    const kept = (await client.post('/v1/emails', newEmail({ name: 'Kept' }))).body.email;
    const old = (await client.post('/v1/emails', newEmail({ name: 'Old' }))).body.email;
    expect((await client.patch(`/v1/emails/${old.id}`, { archived: true })).body.email.archived).toBe(true);
    const names = async (query: string) =>
      (await client.get(`/v1/emails${query}`)).body.emails.map((e: { name: string }) => e.name);
    expect(await names('')).toEqual(['Kept']);
    expect(await names('?archived=true')).toEqual(['Old']);
    expect((await names('?archived=all')).sort()).toEqual(['Kept', 'Old']);
    expect((await client.get('/v1/emails?archived=maybe')).status).toBe(400);
    await client.patch(`/v1/emails/${old.id}`, { archived: false });
    expect((await names('')).sort()).toEqual(['Kept', 'Old']);
    expect(kept.archived).toBe(false);
  });

  it('emails live in folders: loose ones under the root, filed on create, archived when their folder is deleted', async () => {
    const { client } = await registerUser(ctx.app);
    const loose = (await client.post('/v1/emails', newEmail())).body.email;
    const folder = (await client.post('/v1/folders', { folderType: 'emails', name: 'Onboarding' })).body
      .folder;
    const filed = (await client.post('/v1/emails', newEmail({ folderId: folder.id }))).body.email;
    const tree = (await client.get('/v1/folders?folderType=emails')).body.folders;
    const root = tree.find((f: { root: boolean }) => f.root);
    expect(root.childrenIds).toContainEqual({ type: 'item', id: loose.id });
    expect(root.childrenIds).not.toContainEqual({ type: 'item', id: filed.id });
    expect(tree.find((f: { id: number }) => f.id === folder.id).childrenIds).toEqual([
      { type: 'item', id: filed.id },
    ]);

    const tags = (await client.get('/v1/folders?folderType=tags')).body.folders[0];
    expect((await client.post('/v1/emails', newEmail({ folderId: tags.id }))).status).toBe(400);

    expect((await client.request('DELETE', `/v1/folders/${folder.id}`)).status).toBe(204);
    expect((await client.get(`/v1/emails/${filed.id}`)).body.email.archived).toBe(true);
    expect((await client.get(`/v1/emails/${loose.id}`)).body.email.archived).toBe(false);
  });
});

describe('emails: duplication', () => {
  it("copies as 'Copy of {name}' without id and stats, here and into another account of the user's", async () => {
    const owner = await registerUser(ctx.app);
    const source = (await owner.client.post('/v1/emails', newEmail({ name: 'Launch' }))).body.email;
    const here = await owner.client.post('/v1/emails/duplication', { emailId: source.id });
    expect(here.status).toBe(201);
    expect(here.body.message).toBe(emailMessages.copied);
    expect(here.body.email).toMatchObject({
      name: 'Copy of Launch',
      subject: source.subject,
      html: source.html,
      editor: source.editor,
    });
    expect(here.body.email.id).not.toBe(source.id);

    const sub = (
      await owner.client.post('/v1/team-members/accounts', {
        name: 'Client Co',
        site: 'client.example.com',
        industry: 'Agency',
        timezone: 'UTC',
      })
    ).body.subaccount;
    const there = await owner.client.post('/v1/emails/duplication', {
      emailId: source.id,
      targetAccountId: sub.id,
    });
    expect(there.status).toBe(201);
    expect(there.body.email.name).toBe('Copy of Launch');
    // Not in this account; in the other one.
    expect((await owner.client.get('/v1/emails')).body.emails).toHaveLength(2);
    await owner.client.post(`/v1/accounts/${sub.id}/switch`);
    const inSub = (await owner.client.get('/v1/emails')).body.emails;
    expect(inSub.map((e: { id: number }) => e.id)).toEqual([there.body.email.id]);
  });

  it('refuses an account the user does not belong to, and a missing or foreign email', async () => {
    const owner = await registerUser(ctx.app);
    const stranger = await registerUser(ctx.app);
    const source = (await owner.client.post('/v1/emails', newEmail())).body.email;
    const foreign = await owner.client.post('/v1/emails/duplication', {
      emailId: source.id,
      targetAccountId: stranger.account.accountId,
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe(emailMessages.targetAccountForbidden);
    expect((await stranger.client.get('/v1/emails')).body.emails).toHaveLength(0);
    expect((await stranger.client.post('/v1/emails/duplication', { emailId: source.id })).status).toBe(404);
    expect((await owner.client.post('/v1/emails/duplication', {})).body.message).toBe(
      emailMessages.missingId,
    );
    expect((await owner.client.get('/v1/emails')).body.emails).toHaveLength(1);
  });
});

describe('emails: permissions and accounts', () => {
  it('emails:read reads and previews but cannot change; no emails scope sees nothing', async () => {
    const owner = await registerUser(ctx.app);
    const email = (await owner.client.post('/v1/emails', newEmail())).body.email;
    const reader = await addMember(ctx, smtp, owner, ['emails:read']);
    expect((await reader.get('/v1/emails')).body.emails).toHaveLength(1);
    expect((await reader.get(`/v1/emails/${email.id}`)).status).toBe(200);
    expect(
      (await reader.post('/v1/emails/preview', { email: { subject: 'x', html: '<p>x</p>' } })).status,
    ).toBe(200);
    for (const res of [
      await reader.post('/v1/emails', newEmail()),
      await reader.patch(`/v1/emails/${email.id}`, { subject: 'Taken over' }),
      await reader.post('/v1/emails/duplication', { emailId: email.id }),
      await reader.post('/v1/emails/test', { email: { subject: 'x', html: 'x' }, sendTo: ['a@example.com'] }),
    ]) {
      expect(res.status).toBe(403);
    }
    const outsider = await addMember(ctx, smtp, owner, ['people:read']);
    expect((await outsider.get('/v1/emails')).status).toBe(403);
    expect((await owner.client.get(`/v1/emails/${email.id}`)).body.email.subject).toBe(email.subject);
  });

  it("one account never sees or changes another's emails", async () => {
    const a = await registerUser(ctx.app);
    const b = await registerUser(ctx.app);
    const email = (await a.client.post('/v1/emails', newEmail())).body.email;
    expect((await b.client.get(`/v1/emails/${email.id}`)).status).toBe(404);
    expect((await b.client.patch(`/v1/emails/${email.id}`, { subject: 'mine' })).status).toBe(404);
    expect((await b.client.get('/v1/emails?archived=all')).body.emails).toHaveLength(0);
    expect((await a.client.get(`/v1/emails/${email.id}`)).body.email.subject).toBe(email.subject);
  });

  it('serves the starter templates', async () => {
    const { client } = await registerUser(ctx.app);
    const res = await client.get('/v1/emails/templates');
    expect(res.status).toBe(200);
    expect(res.body.templates.length).toBeGreaterThanOrEqual(3);
    for (const template of res.body.templates) {
      // Every template renders, and every one can be unsubscribed from.
      const preview = await client.post('/v1/emails/preview', {
        email: { subject: template.subject, preheader: template.preheader, html: template.html },
      });
      expect(preview.status, template.id).toBe(200);
      const codes = preview.body.warnings.map((w: { code: string }) => w.code);
      expect(codes, template.id).not.toContain('noUnsubscribeLink');
      expect(codes, template.id).not.toContain('unknownMergeTag');
      // Offline: nothing loads from elsewhere when the email opens.
      expect(template.html, template.id).not.toMatch(/<link|<script|src=["']?https?:|@import|url\(/i);
      expect(preview.body.html, template.id).toMatch(/<td class="content" style="[^"]*padding/);
    }
    expect(new Set(res.body.templates.map((t: { editorType: string }) => t.editorType))).toEqual(
      new Set(['html', 'richtext', 'dragdrop']),
    );
  });
});
