import { flowMessages, serviceMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { outgoingMessages } from '../../src/lib/outgoing-url.ts';
import { addStep, fields, link, newFlow } from '../flows-fixtures.ts';
import { registerUser, uniqueEmail } from '../helpers.ts';
import { until } from '../until.ts';
import { useSsrfWorld } from './ssrf-context.ts';
import { hookUrl, rebindAnswers } from './ssrf-payloads.ts';

/**
 * SSRF when Herald calls out on its own (issue 22): a flow's webhook step, an outgoing webhook endpoint's deliveries
 * and retries, a flow's Slack message and an account alert to Slack. Each address was public (the trusted receiver)
 * when it was saved and turns private before the call, directly or through a redirect; the call is refused without a
 * connection, recorded as failed with the reason, and shown to the account (its alerts, the delivery log).
 */
const world = useSsrfWorld('run');

type Owner = Awaited<ReturnType<typeof registerUser>>;
const accountOf = (owner: Owner) => owner.account.accountId as number;
type Delivery = {
  id: number;
  status: string;
  attempts: number;
  lastError: string | null;
  responseStatus: number | null;
  lastAttemptAt: string | null;
};

/** The names that turn private, and redirects from the trusted receiver to private targets, for one use. */
function addresses(use: string) {
  const port = world.targets.port;
  const names = rebindAnswers.map((answer, i) => ({ name: `${use}-${i}.run.test`, answer }));
  for (const { name } of names) world.zone[name] = { A: ['127.0.0.2'] };
  const redirects = [
    `http://127.0.0.1:${port}/hook`,
    `http://[::ffff:7f00:1]:${port}/hook`,
    `http://loop.ssrf.test:${port}/hook`,
    'http://169.254.169.254/latest/meta-data/',
  ].map(
    (to, i) =>
      `http://127.0.0.2:${port}/${use}-${i}?status=${[301, 302, 307, 308][i]}&to=${encodeURIComponent(to)}`,
  );
  return {
    urls: [...names.map(({ name }) => hookUrl(name, port)), ...redirects],
    /** The names answer their private addresses from now on. */
    turn: () => names.forEach(({ name, answer }) => (world.zone[name] = answer)),
  };
}

async function webhookFlow(owner: Owner, tag: string, url: string) {
  const flow = await newFlow(owner.client, `Hook ${url.slice(0, 60)}`);
  const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag });
  const step = await addStep(owner.client, flow.id, '/send-webhook', { url });
  await link(owner.client, trigger.id, step.id);
  const on = await owner.client.patch(`/v1/integrations/${flow.id}`, { status: 'active' });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  return { flow, step };
}

async function taggedPerson(owner: Owner, tags: string[]) {
  const created = await owner.client.post('/v1/people/?source=manual', {
    email: uniqueEmail('ssrf'),
    firstName: 'Ada',
  });
  expect(created.status).toBe(201);
  for (const tag of tags)
    expect((await owner.client.post('/v1/tags/', { tag, id: created.body.user.id })).status).toBeLessThan(
      300,
    );
  return created.body.user.id as number;
}

const issuesOf = async (owner: Owner) =>
  (await owner.client.get('/v1/accounts/issues')).body.issues as { kind: string; message: string }[];

describe('SSRF at run time', () => {
  it('flow webhook steps whose address turned private fail once, with the reason, and raise an alert', async () => {
    const owner = await registerUser(world.ctx.app);
    const { urls, turn } = addresses('flow');
    const flows = [];
    for (const url of urls) flows.push(await webhookFlow(owner, 'ssrf-run', url));
    turn();
    await taggedPerson(owner, ['ssrf-run']);
    const calls = await until(
      async () => {
        const rows = await world.ctx.services.db
          .selectFrom('flowWebhookCalls')
          .select(['url', 'status', 'attempts', 'lastError', 'responseStatus'])
          .where('accountId', '=', accountOf(owner))
          .execute();
        return rows.length === urls.length && rows.every((r) => r.status === 'failed') && rows;
      },
      { timeout: 20_000, message: 'webhook calls refused' },
    );
    world.attempts += calls.length;
    for (const call of calls)
      expect(call, call.url).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastError: outgoingMessages.private,
        responseStatus: null,
      });
    const issues = await until(
      async () => {
        const list = await issuesOf(owner);
        return list.length === urls.length && list;
      },
      { timeout: 20_000, message: 'alerts shown' },
    );
    for (const { flow, step } of flows) {
      const url = urls[flows.findIndex((f) => f.step.id === step.id)]!;
      expect(issues).toContainEqual(
        expect.objectContaining({
          kind: `flow-webhook:${step.id}`,
          message: flowMessages.webhookRefusedAlert(flow.name, url, outgoingMessages.private),
        }),
      );
    }
    // Giving the step another address closes its alert.
    const { step } = flows[0]!;
    const changed = await owner.client.patch(`/v1/steps/${step.id}`, {
      inputFields: fields({ url: `${world.receiver.base}/fixed` }),
      confirmActiveEdit: true,
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await issuesOf(owner)).map((issue) => issue.kind)).not.toContain(`flow-webhook:${step.id}`);
  });

  it('outgoing webhook deliveries to an address that turned private are logged as failed, also when retried', async () => {
    const owner = await registerUser(world.ctx.app);
    const { urls, turn } = addresses('endpoint');
    const endpoints: number[] = [];
    for (const url of urls) {
      const created = await owner.client.post('/v1/webhook-endpoints', { url, events: ['person.created'] });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      endpoints.push(created.body.endpoint.id);
    }
    turn();
    await taggedPerson(owner, []);
    for (const [i, id] of endpoints.entries()) {
      const log = await until(
        async () => {
          const rows = (await owner.client.get(`/v1/webhook-endpoints/${id}/deliveries`)).body
            .deliveries as Delivery[];
          return rows.length === 1 && rows[0]!.lastError !== null && rows;
        },
        { timeout: 20_000, message: `delivery of ${urls[i]}` },
      );
      world.attempts += 1;
      expect(log[0], urls[i]).toMatchObject({ lastError: outgoingMessages.private, responseStatus: null });
      expect(['pending', 'failed']).toContain(log[0]!.status);
      const retried = await owner.client.post(
        `/v1/webhook-endpoints/${id}/deliveries/${log[0]!.id}/retry`,
        {},
      );
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      await until(
        async () => {
          const rows = (await owner.client.get(`/v1/webhook-endpoints/${id}/deliveries`)).body
            .deliveries as Delivery[];
          return (
            (rows[0]!.lastAttemptAt !== log[0]!.lastAttemptAt || rows[0]!.attempts !== log[0]!.attempts) &&
            rows
          );
        },
        { timeout: 20_000, message: `retry of ${urls[i]}` },
      );
      world.attempts += 1;
    }
  });

  it("a flow's Slack message and an account alert to Slack are refused once Slack's host resolves privately", async () => {
    const owner = await registerUser(world.ctx.app);
    const port = world.targets.port;
    for (const [i, answer] of rebindAnswers.entries()) {
      world.zone['hooks.slack.com'] = { A: ['127.0.0.2'] };
      const connected = await owner.client.post('/v1/auth/slack', {
        url: `https://hooks.slack.com:${port}/services/T0/B0/secret${i}`,
      });
      expect(connected.status, JSON.stringify(connected.body)).toBe(200);
      const flow = await newFlow(owner.client, `Slack ${i}`);
      const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: `slack-${i}` });
      const step = await addStep(owner.client, flow.id, '/slack-notification', { text: 'A new trial' });
      await link(owner.client, trigger.id, step.id);
      expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { status: 'active' })).status).toBe(
        200,
      );
      // A webhook step that will be refused too: its alert goes to Slack.
      world.zone[`alert-${i}.run.test`] = { A: ['127.0.0.2'] };
      await webhookFlow(owner, `slack-${i}`, hookUrl(`alert-${i}.run.test`, port));
      world.zone['hooks.slack.com'] = answer;
      world.zone[`alert-${i}.run.test`] = answer;
      await taggedPerson(owner, [`slack-${i}`]);
      const { rows } = await until(
        async () => {
          const r = await sql<{
            source: string;
            status: string;
            lastError: string | null;
          }>`select source, status, last_error as "lastError" from slack_messages where account_id = ${accountOf(owner)} order by id`.execute(
            world.ctx.services.db,
          );
          return r.rows.filter((m) => m.status === 'failed').length >= 2 * (i + 1) && r;
        },
        { timeout: 20_000, message: 'slack messages refused' },
      );
      world.attempts += 2;
      expect(rows.filter((m) => m.source === 'flow').length).toBe(i + 1);
      for (const message of rows)
        expect(message).toMatchObject({ status: 'failed', lastError: outgoingMessages.private });
      expect(await issuesOf(owner)).toContainEqual(
        expect.objectContaining({
          kind: 'slack-refused',
          message: serviceMessages.slackRefusedAlert(outgoingMessages.private),
        }),
      );
    }
    delete world.zone['hooks.slack.com'];
  });
});
