import { emailMessages, emailWarningMessages } from '@herald/contracts';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { startSmtpServer } from './smtp.ts';

/** Served over https, as production is: RFC 8058 one-click unsubscribe needs an https link. */
const origin = 'https://herald.test';
const register = (app: TestContext['app']) => registerUser(app, { origin });
let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Herald <no-reply@herald.test>',
    PUBLIC_URL: origin,
  });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/**
 * RFC 8058 §3.1: List-Unsubscribe holds one https URI (and may hold a mailto), each in angle brackets;
 * List-Unsubscribe-Post holds exactly `List-Unsubscribe=One-Click`.
 */
function oneClickProblems(mail: ParsedMail): string[] {
  const header = (name: string) =>
    mail.headerLines
      .filter((line) => line.key === name)
      .map((line) => line.line.slice(line.line.indexOf(':') + 1).trim());
  const problems: string[] = [];
  const unsubscribe = header('list-unsubscribe');
  const post = header('list-unsubscribe-post');
  if (unsubscribe.length !== 1) problems.push(`${unsubscribe.length} List-Unsubscribe headers`);
  if (post.length !== 1 || post[0] !== 'List-Unsubscribe=One-Click')
    problems.push(`List-Unsubscribe-Post is ${JSON.stringify(post)}`);
  const uris = (unsubscribe[0] ?? '')
    .replace(/\r?\n\s+/g, ' ')
    .split(',')
    .map((part) => part.trim());
  if (!uris.every((uri) => /^<[^<>\s]+>$/.test(uri)))
    problems.push(`URIs not in angle brackets: ${unsubscribe[0]}`);
  if (uris.filter((uri) => uri.startsWith('<https://')).length !== 1) problems.push('no single https URI');
  return problems;
}

describe('emails: preview', () => {
  it('renders sample data or a chosen person, escapes their values, and lists the warnings', async () => {
    const { client } = await register(ctx.app);
    await client.post('/v1/fields', { items: [{ name: 'plan', title: 'Plan', type: 'string' }] });
    const person = (
      await client.post('/v1/people/?source=manual', {
        email: uniqueEmail('grace'),
        firstName: '<script>x</script>Grace',
        plan: 'Pro',
      })
    ).body.user;
    const draft = {
      subject: 'Hi {{ person.firstName }}',
      html: '<p>Hi {{ person.firstName | default: "there" }} on {{ person.plan | default: "Free" }} {{ person.fristName }}</p>',
    };

    const sample = await client.post('/v1/emails/preview', { email: draft });
    expect(sample.status).toBe(200);
    expect(sample.body).toMatchObject({ subject: 'Hi Jane', personId: null });
    expect(sample.body.html).toContain('Hi Jane on Free');
    expect(sample.body.text).toContain('Hi Jane on Free');
    const codes = sample.body.warnings.map((w: { code: string }) => w.code).sort();
    expect(codes).toEqual(['noMailingAddress', 'noUnsubscribeLink', 'unknownMergeTag']);
    expect(sample.body.warnings.find((w: { code: string }) => w.code === 'unknownMergeTag').message).toBe(
      emailWarningMessages.unknownMergeTag('person.fristName'),
    );

    const asPerson = await client.post('/v1/emails/preview', { email: draft, personId: person.id });
    expect(asPerson.body.personId).toBe(person.id);
    expect(asPerson.body.html).toContain('&lt;script&gt;x&lt;/script&gt;Grace on Pro');
    expect(asPerson.body.html).not.toContain('<script>');
    expect(asPerson.body.subject).toBe('Hi <script>x</script>Grace');

    await client.patch('/v1/accounts/me', { mailingAddress: '1 Engine Way, London' });
    const complete = await client.post('/v1/emails/preview', {
      email: {
        subject: 'Hi',
        html: '<p>{{ account.mailingAddress }}</p><a href="{{ unsubscribe_url }}">Unsubscribe</a>',
      },
    });
    expect(complete.body.warnings).toEqual([]);
    expect(complete.body.html).toContain('1 Engine Way, London');
    expect(
      (
        await client.post('/v1/emails/preview', { email: { subject: '', html: '<p>x</p>' } })
      ).body.warnings.map((w: { code: string }) => w.code),
    ).toContain('emptySubject');

    // Automatic UTM tagging (Settings → Email → General) tags the links with the email's name as campaign.
    const linked = {
      name: 'Spring sale',
      subject: 'Hi',
      html: '<a href="https://shop.example/spring">Shop</a>',
    };
    expect((await client.post('/v1/emails/preview', { email: linked })).body.html).toContain(
      'href="https://shop.example/spring"',
    );
    await client.patch('/v1/accounts/me', { linkUTMs: true });
    expect((await client.post('/v1/emails/preview', { email: linked })).body.html).toContain(
      'href="https://shop.example/spring?utm_source=herald&amp;utm_medium=email&amp;utm_campaign=Spring+sale"',
    );
  });

  it('refuses broken merge tags (422, naming part and line), people of other accounts, and a runaway template', async () => {
    const { client } = await register(ctx.app);
    const other = await register(ctx.app);
    const stranger = (await other.client.post('/v1/people/?source=manual', { email: uniqueEmail() })).body
      .user;
    const broken = await client.post('/v1/emails/preview', {
      email: { subject: 'Hi', html: 'one\ntwo\n{% if %}' },
    });
    expect(broken.status).toBe(422);
    expect(broken.body.message).toBe(
      emailMessages.templateError('content', 3, broken.body.message.split(': ').slice(1).join(': ')),
    );
    expect(
      (
        await client.post('/v1/emails/preview', {
          email: { subject: 'Hi', html: 'x' },
          personId: stranger.id,
        })
      ).status,
    ).toBe(404);
    const loop = '{% for a in (1..100000) %}{% for b in (1..100000) %}{{ a }}{% endfor %}{% endfor %}';
    const started = Date.now();
    const runaway = await client.post('/v1/emails/preview', { email: { subject: 'Hi', html: loop } });
    expect(runaway.status).toBe(422);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('emails: test sends through SMTP', () => {
  it('sends the draft, personalised, to each address with the unsubscribe headers of RFC 8058', async () => {
    const { client } = await register(ctx.app);
    const person = (
      await client.post('/v1/people/?source=manual', { email: uniqueEmail(), firstName: 'Grace' })
    ).body.user;
    const to = [uniqueEmail('first'), uniqueEmail('second')];
    const res = await client.post('/v1/emails/test', {
      email: newEmail({ replyTo: 'replies@analytical.example.com' }),
      sendTo: to,
      personId: person.id,
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(emailMessages.testSent(to.join(', ')));

    for (const address of to) {
      const mail = await smtp.waitFor(address);
      expect(mail.subject).toBe('[Test] Welcome, Grace');
      expect(mail.from?.value[0]).toMatchObject({
        name: 'Ada at Analytical',
        address: 'no-reply@herald.test',
      });
      expect(mail.replyTo?.value[0]?.address).toBe('replies@analytical.example.com');
      expect(mail.html).toMatch(/<p[^>]*style="[^"]*color: ?#123456[^"]*"[^>]*>Hi Grace<\/p>/);
      expect(mail.text).toContain('Hi Grace');
      expect(mail.messageId).toMatch(/^<[0-9a-f]{32}@herald\.test>$/);
      expect(oneClickProblems(mail)).toEqual([]);
    }
  });

  it('sends once per address for one Idempotency-Key, and a comma-separated list is accepted', async () => {
    const { client, account } = await register(ctx.app);
    const to = uniqueEmail('once');
    const headers = { 'idempotency-key': `key-${to}` };
    expect(
      (
        await client.post(
          '/v1/emails/test',
          { email: newEmail(), sendTo: `${to}, ${to.toUpperCase()}` },
          { headers },
        )
      ).status,
    ).toBe(200);
    expect(
      (await client.post('/v1/emails/test', { email: newEmail(), sendTo: [to] }, { headers })).status,
    ).toBe(200);
    await smtp.waitFor(to);
    const rows = await ctx.services.db
      .selectFrom('mailDeliveries')
      .select(['idempotencyKey', 'status'])
      .where('accountId', '=', account.accountId)
      .execute();
    expect(rows).toHaveLength(1);
    await queueDrained(ctx.database.pool);
    expect(smtp.received.filter((m) => JSON.stringify(m.to).includes(to))).toHaveLength(1);
  });

  it('refuses 6 recipients, none, an invalid address, and a broken draft; nothing is queued', async () => {
    const { client, account } = await register(ctx.app);
    const six = Array.from({ length: 6 }, () => uniqueEmail());
    const tooMany = await client.post('/v1/emails/test', { email: newEmail(), sendTo: six });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe(emailMessages.tooManyTestRecipients(5));
    expect((await client.post('/v1/emails/test', { email: newEmail(), sendTo: [] })).body.message).toBe(
      emailMessages.noTestRecipients,
    );
    const invalid = await client.post('/v1/emails/test', {
      email: newEmail(),
      sendTo: ['ok@example.com', 'not-an-address'],
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toMatch(/valid email address/);
    expect(
      (
        await client.post('/v1/emails/test', {
          email: newEmail({ html: '{{ x | nope }}' }),
          sendTo: ['ok@example.com'],
        })
      ).status,
    ).toBe(422);
    const rows = await ctx.services.db
      .selectFrom('mailDeliveries')
      .select('idempotencyKey')
      .where('accountId', '=', account.accountId)
      .execute();
    expect(rows).toHaveLength(0);
  });
});
