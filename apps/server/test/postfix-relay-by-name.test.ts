import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, uniqueEmail, type TestContext } from './helpers.ts';
import { makeCertificates, postfixInstalled, startPostfixRelay, type PostfixRelay } from './postfix.ts';
import { broadcastStatus, sendBroadcastTo } from './relay-broadcasts.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

/**
 * Herald pointed at Debian's Postfix by name (SMTP_URL=smtp://localhost:…), the relay's certificate naming
 * "localhost" only, from a CA given with SMTP_TLS_CA_FILE (docs/broadcasts-and-sending.md, "Sending through a real mail server").
 * The address case, refusals and 4xx replies are in postfix-relay.test.ts; a file of its own, since each Herald
 * here runs a job worker on the file's database.
 */
if (!postfixInstalled() && process.env.CI)
  throw new Error('Postfix is not installed: .ci/run installs it (apt-get install postfix)');

const origin = 'https://herald.test';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-relay-by-name-'));
let sink: Awaited<ReturnType<typeof startSmtpServer>>;
let relay: PostfixRelay;
let ctx: TestContext;

describe.skipIf(!postfixInstalled())('Herald pointed at the relay by name', () => {
  beforeAll(async () => {
    const certs = await makeCertificates(dir, { names: ['localhost'], addresses: [], label: 'by-name' });
    sink = await startSmtpServer();
    relay = await startPostfixRelay({ relayTo: sink.url.replace('smtp://', ''), tls: certs });
    ctx = await createTestContext({
      SMTP_URL: `smtp://localhost:${relay.port}`,
      SMTP_TLS_CA_FILE: certs.caFile,
      MAIL_FROM: 'Herald <no-reply@herald.test>',
      PUBLIC_URL: origin,
    });
    await ctx.startWorker();
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
    await relay?.stop();
    await sink?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('delivers a broadcast through the relay, STARTTLS checked against the name', async () => {
    const reader = uniqueEmail('by-name');
    const { owner, id } = await sendBroadcastTo(ctx, origin, [reader]);
    expect((await sink.waitFor(reader, 30_000)).subject).toBe('Relay news');
    const status = await until(
      async () => {
        const now = await broadcastStatus(owner.client, id);
        return now.item.status === 'sent' && now;
      },
      { timeout: 30_000, message: 'the broadcast is sent' },
    );
    expect(status.progress).toMatchObject({ sent: 1, failed: 0, problem: null });
    expect(relay.log()).toMatch(/TLS connection established from localhost/);
  });
});
