import { flowMessages, serviceMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { queueSlackMessage } from '../src/features/integrations/slack-outbox.ts';
import { checkOutgoingUrl, outgoingMessages } from '../src/lib/outgoing-url.ts';
import { addStep, fields, link, newFlow } from './flows-fixtures.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { until } from './until.ts';
import { startSsrfDns } from './security/ssrf-net.ts';

/**
 * Refused outgoing addresses at run time are shown and not retried (issue 22): a flow's webhook call raises an
 * account alert naming the flow, closed when the step gets another address; a Slack message fails at once with an
 * alert, and the Slack test answers 400. OUTGOING_DNS_SERVERS makes outgoing calls resolve through given servers.
 */
let ctx: TestContext;
let dns: Awaited<ReturnType<typeof startSsrfDns>>;
beforeAll(async () => {
  dns = await startSsrfDns({
    'hooks.slack.com': { A: ['127.0.0.1'] },
    'public.refusals.test': { A: ['93.184.215.14'] },
  });
  ctx = await createTestContext({ OUTGOING_DNS_SERVERS: dns.server });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await dns.close();
});

describe('refused outgoing addresses', () => {
  it('OUTGOING_DNS_SERVERS: names resolve through those servers; the setting takes only server addresses', async () => {
    expect(await checkOutgoingUrl('https://hooks.slack.com/services/T/B/x', ctx.config.outgoing)).toBe(
      outgoingMessages.private,
    );
    expect(await checkOutgoingUrl('https://public.refusals.test/hook', ctx.config.outgoing)).toBeNull();
    expect(
      loadConfig({ OUTGOING_DNS_SERVERS: '1.1.1.1, [::1]:53,127.0.0.1:5353' }).outgoing.dnsServers,
    ).toEqual(['1.1.1.1', '[::1]:53', '127.0.0.1:5353']);
    expect(() => loadConfig({ OUTGOING_DNS_SERVERS: 'dns.example.com' })).toThrow(/OUTGOING_DNS_SERVERS/);
  });

  it("a flow's webhook call to a refused address fails once and raises an alert, which a new address closes", async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const flow = await newFlow(owner.client, 'CRM sync');
    const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'sync' });
    const hook = await addStep(owner.client, flow.id, '/send-webhook', {
      url: 'https://public.refusals.test/hook',
    });
    await link(owner.client, trigger.id, hook.id);
    expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { status: 'active' })).status).toBe(200);
    // The name turns private after the flow was switched on.
    dns.zone['public.refusals.test'] = { A: ['10.0.0.7'] };
    const person = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('sync') });
    await owner.client.post('/v1/tags/', { tag: 'sync', id: person.body.user.id });
    const issues = await until(
      async () => {
        const shown = (await owner.client.get('/v1/accounts/issues')).body.issues as {
          kind: string;
          message: string;
        }[];
        return shown.length > 0 && shown;
      },
      { timeout: 20_000, message: 'an account alert' },
    );
    expect(issues).toEqual([
      expect.objectContaining({
        kind: `flow-webhook:${hook.id}`,
        message: flowMessages.webhookRefusedAlert(
          'CRM sync',
          'https://public.refusals.test/hook',
          outgoingMessages.private,
        ),
      }),
    ]);
    const calls = await ctx.services.db
      .selectFrom('flowWebhookCalls')
      .select(['status', 'attempts', 'lastError'])
      .where('accountId', '=', accountId)
      .execute();
    expect(calls).toEqual([{ status: 'failed', attempts: 1, lastError: outgoingMessages.private }]);
    dns.zone['public.refusals.test'] = { A: ['93.184.215.14'] };
    const moved = await owner.client.patch(`/v1/steps/${hook.id}`, {
      inputFields: fields({ url: 'https://public.refusals.test/other' }),
      confirmActiveEdit: true,
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((await owner.client.get('/v1/accounts/issues')).body.issues).toEqual([]);
  });

  it('a Slack message to a refused address fails at once with an alert; the Slack test answers 400 with the reason', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    // A connection saved while hooks.slack.com was public; it now answers a loopback address.
    await sql`insert into account_services (account_id, service_id, credentials) values (${accountId}, 'slack', ${JSON.stringify({ url: 'https://hooks.slack.com/services/T0/B0/x' })}::jsonb)`.execute(
      ctx.services.db,
    );
    const test = await owner.client.post('/v1/services/slack/test', {});
    expect(test.status).toBe(400);
    expect(test.body.message).toBe(outgoingMessages.private);
    await queueSlackMessage(ctx.services.db, accountId, { key: 'refusals-1', source: 'flow', text: 'Hello' });
    const { rows } = await until(
      async () => {
        const found = await sql<{
          status: string;
          attempts: number;
          lastError: string;
        }>`select status, attempts, last_error as "lastError" from slack_messages where account_id = ${accountId}`.execute(
          ctx.services.db,
        );
        return found.rows[0]?.status === 'failed' && found;
      },
      { timeout: 20_000, message: 'the Slack message failed' },
    );
    expect(rows).toEqual([{ status: 'failed', attempts: 1, lastError: outgoingMessages.private }]);
    const issues = (await owner.client.get('/v1/accounts/issues')).body.issues;
    expect(issues).toEqual([
      expect.objectContaining({
        kind: 'slack-refused',
        message: serviceMessages.slackRefusedAlert(outgoingMessages.private),
      }),
    ]);
  });
});
