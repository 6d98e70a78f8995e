import { Resolver } from 'node:dns/promises';
import { sendingMessages } from '@herald/contracts';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealToken } from '../src/lib/sealed-tokens.ts';
import { addMember, newEmail } from './email-helpers.ts';
import { startDnsServer } from './dns-server.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
const spfInclude = '_spf.provider.test';
beforeAll(async () => {
  smtp = await startSmtpServer();
  dns = await startDnsServer({ [spfInclude]: { TXT: ['v=spf1 ip4:192.0.2.0/24 -all'] } });
  ctx = await createTestContext({
    SMTP_URL: smtp.url,
    DNS_SERVERS: dns.server,
    DNS_TIMEOUT_MS: '300',
    SPF_INCLUDE: spfInclude,
  });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
  await dns.close();
});

const linkOf = (text: string | undefined) =>
  decodeURIComponent(/verify-sender\?token=([^\s"<]+)/.exec(text ?? '')?.[1] ?? '');

/** Publish every record a domain asks for in the test DNS server. */
function publish(domain: { records: { kind: string; host: string; value: string; type: string }[] }) {
  for (const record of domain.records) {
    if (record.type === 'TXT')
      dns.zone[record.host] = { TXT: [...(dns.zone[record.host]?.TXT ?? []), record.value] };
  }
}

describe('sender addresses', () => {
  it('adds an address, mails a signed link, and the link verifies it once', async () => {
    const { client } = await registerUser(ctx.app);
    const address = uniqueEmail('news');
    const added = await client.post('/v1/settings/email/addresses', { email: address.toUpperCase() });
    expect(added.status).toBe(201);
    expect(added.body.email).toMatchObject({ email: address, status: 'pending', data: { verifiedBy: null } });
    expect((await client.post('/v1/settings/email/addresses', { email: address })).status).toBe(409);

    const mail = await smtp.waitFor(address);
    const token = linkOf(mail.text);
    expect(token).not.toBe('');
    // The token shows neither the account nor the address.
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain(address);

    const anonymous = new Client(ctx.app);
    expect(
      (await anonymous.post('/v1/sender-verification', { token: `${token.slice(0, -4)}AAAA` })).status,
    ).toBe(400);
    const confirmed = await anonymous.post('/v1/sender-verification', { token });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ email: address, message: sendingMessages.addressVerified(address) });
    const reused = await anonymous.post('/v1/sender-verification', { token });
    expect(reused.status).toBe(410);
    expect(reused.body.message).toBe(sendingMessages.verificationLinkUsed);
    const list = await client.get('/v1/settings/email/addresses');
    expect(list.body.emails).toEqual([
      expect.objectContaining({
        email: address,
        status: 'verified',
        data: expect.objectContaining({ verifiedBy: 'address' }),
      }),
    ]);
  });

  it('refuses expired, forged and superseded links, resends, deletes, and checks scopes and accounts', async () => {
    const owner = await registerUser(ctx.app);
    const { client } = owner;
    const address = uniqueEmail('sales');
    await client.post('/v1/settings/email/addresses', { email: address });
    const first = linkOf((await smtp.waitFor(address)).text);
    const accountId = owner.account.accountId as number;
    const anonymous = new Client(ctx.app);
    const expired = sealToken(
      { a: accountId, e: address, n: 'x' },
      ctx.services.secret,
      'sender-verification',
      60,
      Date.now() - 3600_000,
    );
    expect((await anonymous.post('/v1/sender-verification', { token: expired })).body.message).toBe(
      sendingMessages.verificationLinkInvalid,
    );
    const otherKind = sealToken(
      { a: accountId, e: address, n: 'x' },
      ctx.services.secret,
      'preferences',
      600,
    );
    expect((await anonymous.post('/v1/sender-verification', { token: otherKind })).status).toBe(400);
    expect((await anonymous.post('/v1/sender-verification', { token: 'x' })).status).toBe(400);

    smtp.received.length = 0;
    const resent = await client.post('/v1/settings/email/addresses/verification', { emails: [address] });
    expect(resent.body).toEqual({ message: sendingMessages.verificationSent });
    const second = linkOf((await smtp.waitFor(address)).text);
    expect(second).not.toBe(first);
    expect((await anonymous.post('/v1/sender-verification', { token: first })).status).toBe(400);
    expect(
      (await client.post('/v1/settings/email/addresses/verification', { emails: [uniqueEmail()] })).status,
    ).toBe(404);
    expect((await client.post('/v1/settings/email/addresses/verification', { emails: [] })).status).toBe(400);
    expect((await client.post('/v1/settings/email/addresses', { email: 'not an address' })).status).toBe(400);

    const reader = await addMember(ctx, smtp, owner, ['emails:read']);
    expect((await reader.get('/v1/settings/email/addresses')).body.emails).toHaveLength(1);
    expect((await reader.post('/v1/settings/email/addresses', { email: uniqueEmail() })).status).toBe(403);
    expect((await reader.request('DELETE', `/v1/settings/email/addresses/${address}`)).status).toBe(403);
    const stranger = await registerUser(ctx.app);
    expect((await stranger.client.get('/v1/settings/email/addresses')).body.emails).toEqual([]);
    expect((await stranger.client.request('DELETE', `/v1/settings/email/addresses/${address}`)).status).toBe(
      404,
    );

    expect((await client.request('DELETE', `/v1/settings/email/addresses/${address}`)).status).toBe(204);
    expect((await client.get('/v1/settings/email/addresses')).body.emails).toEqual([]);
    expect((await anonymous.post('/v1/sender-verification', { token: second })).status).toBe(400);
  });
});

describe('sender domains', () => {
  it('reduces what is typed to a domain and refuses what cannot be one', async () => {
    const { client } = await registerUser(ctx.app);
    const added = await client.post('/v1/settings/email/domains', {
      domain: ' https://www.Shop-Example.com:8080/about?x=1 ',
    });
    expect(added.status).toBe(201);
    expect(added.body.domain).toMatchObject({
      domain: 'shop-example.com',
      status: 'pending',
      checkedAt: null,
    });
    expect(
      added.body.domain.records.map((r: { kind: string; status: string }) => `${r.kind}:${r.status}`),
    ).toEqual(['dkim:unchecked', 'spf:unchecked', 'dmarc:unchecked']);
    expect((await client.post('/v1/settings/email/domains', { domain: 'shop-example.com' })).status).toBe(
      409,
    );
    const idn = await client.post('/v1/settings/email/domains', { domain: 'bücher.example.org' });
    expect(idn.body.domain).toMatchObject({
      domain: 'xn--bcher-kva.example.org',
      displayName: 'bücher.example.org',
    });
    for (const bad of [
      'localhost',
      '127.0.0.1',
      '[::1]',
      `${'a'.repeat(300)}.com`,
      'аpple.com',
      'xn--pple-43d.com',
      'exa mple.com',
      '',
      'com',
      'intranet.local',
    ]) {
      const refused = await client.post('/v1/settings/email/domains', { domain: bad });
      expect(refused.status, bad).toBe(400);
      expect(refused.body.message, bad).toBe(sendingMessages.invalidDomain);
    }
    expect((await client.get('/v1/settings/email/domains')).body.domains).toHaveLength(2);
  });

  it('checks the records live: passes, explains each failure, and never verifies on a DNS failure', async () => {
    const { client } = await registerUser(ctx.app);
    const name = `brand-${Date.now()}.example.net`;
    const domain = (await client.post('/v1/settings/email/domains', { domain: name })).body.domain;
    const verify = () => client.post(`/v1/settings/email/domains/${domain.id}/verify`);

    const nothing = await verify();
    expect(nothing.body.message).toBe(sendingMessages.domainNotVerified);
    expect(nothing.body.domain.status).toBe('pending');
    expect(nothing.body.domain.records.every((r: { status: string }) => r.status === 'missing')).toBe(true);

    publish(domain);
    const passed = await verify();
    expect(passed.body.message).toBe(sendingMessages.domainVerified);
    expect(passed.body.domain).toMatchObject({ status: 'verified', lastCheckComplete: true });
    expect(passed.body.domain.verifiedAt).not.toBeNull();

    const dmarcHost = `_dmarc.${name}`;
    const dmarc = dns.zone[dmarcHost];
    dns.zone[dmarcHost] = { TXT: ['v=DMARC1; rua=mailto:x@example.net'] };
    const noPolicy = await verify();
    expect(noPolicy.body.domain.status).toBe('failing');
    const dmarcCheck = noPolicy.body.domain.records.find((r: { kind: string }) => r.kind === 'dmarc');
    expect(dmarcCheck.status).toBe('invalid');
    expect(dmarcCheck.problems.join(' ')).toMatch(/p=/);

    dns.zone[dmarcHost] = { fail: 'servfail' };
    const servfail = await verify();
    expect(servfail.status).toBe(200);
    expect(servfail.body.message).toBe(sendingMessages.domainCouldNotCheck);
    expect(servfail.body.domain).toMatchObject({ status: 'failing', lastCheckComplete: false });
    expect(servfail.body.domain.records.find((r: { kind: string }) => r.kind === 'dmarc').status).toBe(
      'unknown',
    );

    dns.zone[dmarcHost] = dmarc!;
    dns.zone[name] = { TXT: ['v=spf1 include:_spf.provider.test ~all', 'v=spf1 mx -all'] };
    const twoSpf = await verify();
    expect(twoSpf.body.domain.records.find((r: { kind: string }) => r.kind === 'spf').status).toBe('invalid');
    dns.zone[name] = { TXT: ['v=spf1 include:_spf.provider.test ~all'] };
    expect((await verify()).body.domain.status).toBe('verified');

    // A pending domain whose check times out stays pending: never a false "verified".
    const other = (await client.post('/v1/settings/email/domains', { domain: `slow-${name}` })).body.domain;
    publish(other);
    const dkimHost = other.records.find((r: { kind: string }) => r.kind === 'dkim').host;
    dns.zone[dkimHost] = { fail: 'timeout' };
    const timedOut = await client.post(`/v1/settings/email/domains/${other.id}/verify`);
    expect(timedOut.body.domain).toMatchObject({ status: 'pending', lastCheckComplete: false });
    expect(timedOut.body.domain.records.find((r: { kind: string }) => r.kind === 'dkim').status).toBe(
      'unknown',
    );
  });

  it('a verified domain covers its addresses, and mail from them is DKIM-signed (mailauth verifies it)', async () => {
    const owner = await registerUser(ctx.app);
    const { client } = owner;
    const name = `signed-${Date.now()}.example.org`;
    const domain = (await client.post('/v1/settings/email/domains', { domain: name })).body.domain;
    const from = `hello@${name}`;
    const before = await client.post('/v1/settings/email/addresses', { email: from });
    expect(before.body.email.status).toBe('pending');
    publish(domain);
    expect((await client.post(`/v1/settings/email/domains/${domain.id}/verify`)).body.domain.status).toBe(
      'verified',
    );
    expect((await client.get('/v1/settings/email/addresses')).body.emails[0]).toMatchObject({
      email: from,
      status: 'verified',
      data: { verifiedBy: 'domain' },
    });
    const covered = await client.post('/v1/settings/email/addresses', { email: `team@${name}` });
    expect(covered.body.email.status).toBe('verified');

    const to = uniqueEmail('reader');
    const sent = await client.post('/v1/emails/test', { email: newEmail({ fromEmail: from }), sendTo: [to] });
    expect(sent.status).toBe(200);
    const mail = await smtp.waitFor(to);
    expect(mail.from?.value[0]?.address).toBe(from);
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.server]);
    const result = await dkimVerify(smtp.raw.get(mail)!, {
      resolver: (host, rr) => resolver.resolve(host, rr as 'TXT'),
    });
    const signature = result.results.find((r) => r.signingDomain === name);
    expect(signature?.status.result).toBe('pass');

    // Unverified addresses still get test sends, from Herald's own address and unsigned by the account.
    const to2 = uniqueEmail('reader');
    await client.post('/v1/emails/test', {
      email: newEmail({ fromEmail: 'someone@elsewhere.example.com' }),
      sendTo: [to2],
    });
    expect((await smtp.waitFor(to2)).from?.value[0]?.address).not.toBe('someone@elsewhere.example.com');

    const reader = await addMember(ctx, smtp, owner, ['emails:read']);
    expect((await reader.get(`/v1/settings/email/domains/${domain.id}`)).status).toBe(200);
    expect((await reader.post(`/v1/settings/email/domains/${domain.id}/verify`)).status).toBe(403);
    const stranger = await registerUser(ctx.app);
    expect((await stranger.client.get(`/v1/settings/email/domains/${domain.id}`)).status).toBe(404);
    expect((await stranger.client.request('DELETE', `/v1/settings/email/domains/${domain.id}`)).status).toBe(
      404,
    );
    expect((await client.request('DELETE', `/v1/settings/email/domains/${domain.id}`)).status).toBe(204);
    expect((await client.get(`/v1/settings/email/domains/${domain.id}`)).status).toBe(404);
    expect(
      (await client.get('/v1/settings/email/addresses')).body.emails.every(
        (a: { status: string }) => a.status === 'pending',
      ),
    ).toBe(true);
  });
});
