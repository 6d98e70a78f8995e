import { flowMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { processBatch } from '../src/features/flows/flow-runs.service.ts';
import { runAdvanceFlow, runFlowWebhooks } from '../src/features/flows/flows.jobs.ts';
import {
  ctx,
  duplicateSteps,
  makeFlow,
  person,
  runsOf,
  setup,
  smtp,
  tagPerson,
  tagsOf,
  useFlowRunsContext,
} from './flow-runs-fixtures.ts';
import { storedEvents, uniqueEmail } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { until } from './until.ts';

// What a run does at each step: sends, branches, waits, notifies and calls webhooks, each once (entering a flow is
// flow-runs-entry.test.ts).
useFlowRunsContext();

describe('flow runs: triggers, steps and effects', () => {
  it('a tag-triggered flow sends its email once, through the pipeline, to the person tagged', async () => {
    const { client, accountId, emailId } = await setup();
    const { flowId, ids } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'trial' } },
        { name: 'send', op: '/send', config: { email: { id: emailId } } },
      ],
      [['trigger', 'send']],
    );
    const ada = await person(client, 'Ada');
    const other = await person(client, 'Other', ['customer']);
    await tagPerson(client, ada.id, 'trial');
    const mail = await smtp.waitFor(ada.email);
    expect(mail.subject).toBe('Welcome to the trial');
    const runs = await until(
      async () => {
        const r = await runsOf(accountId, flowId);
        return r.length === 1 && r[0]!.status === 'done' && r;
      },
      { timeout: 20_000, message: 'run done' },
    );
    expect(runs[0]).toMatchObject({ personId: ada.id, entry: 1, seq: 2, stepId: null });
    const deliveries = await ctx.services.db
      .selectFrom('deliveries')
      .selectAll()
      .where('accountId', '=', accountId)
      .where('sourceKind', '=', 'flow')
      .execute();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      sourceId: ids.send,
      personId: ada.id,
      flowRunId: runs[0]!.id,
      flowSeq: 2,
      emailId,
    });
    await until(
      async () => {
        const s = (
          await ctx.services.db
            .selectFrom('deliveries')
            .select('status')
            .where('accountId', '=', accountId)
            .where('sourceKind', '=', 'flow')
            .executeTakeFirstOrThrow()
        ).status;
        return s === 'sent' && s;
      },
      { timeout: 20_000, message: 'delivery sent' },
    );
    // The sent event names the flow and the step, as the metrics read them.
    const sent = (await storedEvents(ctx.services, accountId)).find(
      (e) => e.type === 'email' && e.name === 'sent',
    )!;
    expect(sent.data).toMatchObject({ flowId, stepId: String(ids.send), emailId });
    expect(smtp.received.filter((m) => JSON.stringify(m.to).includes(ada.email))).toHaveLength(1);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(other.email))).toBe(false);
    expect(await duplicateSteps(accountId, flowId)).toBe(0);
  });

  it('a filter sends each person down its yes or no branch', async () => {
    const { client, accountId } = await setup();
    const { flowId } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'lead' } },
        { name: 'filter', op: '/has-tag', config: { tag: 'vip' } },
        { name: 'yes', op: '/add-tag', config: { tag: 'went-yes' } },
        { name: 'no', op: '/add-tag', config: { tag: 'went-no' } },
      ],
      [
        ['trigger', 'filter'],
        ['filter', 'yes', 'yes'],
        ['filter', 'no', 'no'],
      ],
    );
    const vip = await person(client, 'Vip', ['vip']);
    const plain = await person(client, 'Plain');
    await tagPerson(client, vip.id, 'lead');
    await tagPerson(client, plain.id, 'lead');
    await until(
      async () => {
        const r = await runsOf(accountId, flowId);
        return r.length === 2 && r.every((run) => run.status === 'done') && r;
      },
      { timeout: 20_000, message: 'both done' },
    );
    expect(await tagsOf(accountId, vip.id)).toEqual(expect.arrayContaining(['went-yes']));
    expect(await tagsOf(accountId, vip.id)).not.toContain('went-no');
    expect(await tagsOf(accountId, plain.id)).toEqual(expect.arrayContaining(['went-no']));
    expect(await tagsOf(accountId, plain.id)).not.toContain('went-yes');
  });

  it('a wait holds the run until its wake time, then the flow goes on (time moved by SQL)', async () => {
    const { client, accountId } = await setup();
    const { flowId, ids } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'signed-up' } },
        { name: 'wait', op: '/delay-v2', config: { wait: { mode: 'duration', amount: 2, unit: 'days' } } },
        { name: 'tag', op: '/add-tag', config: { tag: 'two-days-later' } },
      ],
      [
        ['trigger', 'wait'],
        ['wait', 'tag'],
      ],
    );
    const ada = await person(client, 'Ada');
    await tagPerson(client, ada.id, 'signed-up');
    const [waiting] = await until(
      async () => {
        const r = await runsOf(accountId, flowId);
        return r.length === 1 && r[0]!.status === 'waiting' && r;
      },
      { timeout: 20_000, message: 'run waiting' },
    );
    expect(waiting!.stepId).toBe(ids.tag);
    const { rows } = await sql<{
      wakeAt: Date;
    }>`select wake_at as "wakeAt" from flow_runs where account_id = ${accountId} and id = ${waiting!.id}`.execute(
      ctx.services.db,
    );
    expect(rows[0]!.wakeAt.getTime()).toBeGreaterThan(Date.now() + 47 * 3_600_000);
    // Running the flow's job now changes nothing: the wait is not over.
    await runAdvanceFlow(ctx.services, { accountId, flowId });
    expect((await runsOf(accountId, flowId))[0]!.status).toBe('waiting');
    expect(await tagsOf(accountId, ada.id)).not.toContain('two-days-later');
    // Two days pass.
    await sql`update flow_runs set wake_at = now() - interval '1 second' where account_id = ${accountId} and id = ${waiting!.id}`.execute(
      ctx.services.db,
    );
    await runAdvanceFlow(ctx.services, { accountId, flowId });
    expect((await runsOf(accountId, flowId))[0]!.status).toBe('done');
    expect(await tagsOf(accountId, ada.id)).toContain('two-days-later');
  });
});

describe('flow runs: notifications and webhooks', () => {
  it('notifies team members (never other addresses) with the person filled in', async () => {
    const { owner, client, accountId } = await setup();
    const stranger = uniqueEmail('stranger');
    const { flowId } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'hot-lead' } },
        {
          name: 'notify',
          op: '/email-notification',
          config: {
            to: [owner.email, stranger],
            subject: 'Hot lead: {{ person.firstName }}',
            body: 'Call {{ person.firstName }} today.',
          },
        },
      ],
      [['trigger', 'notify']],
    );
    const grace = await person(client, 'Grace');
    await tagPerson(client, grace.id, 'hot-lead');
    const mail = await smtp.waitFor(owner.email);
    expect(mail.subject).toBe('Hot lead: Grace');
    expect(mail.text).toContain('Call Grace today.');
    expect(mail.text).toContain(grace.email);
    await until(
      async () => {
        const r = await runsOf(accountId, flowId);
        return r[0]?.status === 'done' && r;
      },
      { timeout: 20_000, message: 'run done' },
    );
    await queueDrained(ctx.database.pool);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(stranger))).toBe(false);
  });

  it('stores each webhook call once under its run and step key, and records a refused private address as failed', async () => {
    const { client, accountId } = await setup();
    const { flowId } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'sync' } },
        { name: 'hook', op: '/send-webhook', config: { url: 'http://127.0.0.1:9/hook' } },
      ],
      [['trigger', 'hook']],
    );
    const ada = await person(client, 'Ada');
    await tagPerson(client, ada.id, 'sync');
    const [run] = await until(
      async () => {
        const r = await runsOf(accountId, flowId);
        return r[0]?.status === 'done' && r;
      },
      { timeout: 20_000, message: 'run done' },
    );
    await runFlowWebhooks(ctx.services, { accountId });
    const calls = await until(
      async () => {
        const rows = await ctx.services.db
          .selectFrom('flowWebhookCalls')
          .selectAll()
          .where('accountId', '=', accountId)
          .execute();
        return rows.length === 1 && rows[0]!.status === 'failed' && rows;
      },
      { timeout: 20_000, message: 'call recorded' },
    );
    expect(calls[0]).toMatchObject({
      idempotencyKey: `${run!.id}:2`,
      url: 'http://127.0.0.1:9/hook',
      personId: ada.id,
      lastError: flowMessages.webhookPrivate,
    });
    expect(calls[0]!.payload).toMatchObject({
      flowId,
      runId: run!.id,
      person: { id: ada.id, email: ada.email },
    });
  });
});

describe('flow runs: nothing twice, nothing lost', () => {
  /** Runs inserted as a trigger would, without waking the flow's job (the sweeper waits 10 s before it steps in). */
  async function enterQuietly(accountId: number, flowId: number, triggerId: number, personIds: number[]) {
    await sql`insert into flow_runs (account_id, flow_id, person_id, step_id, status, wake_at)
      select ${accountId}, ${flowId}, unnest(${personIds}::bigint[]), ${triggerId}, 'active', now()`.execute(
      ctx.services.db,
    );
  }

  it('a batch that dies after writing its effects leaves nothing behind; the retry does every step once', async () => {
    const { client, accountId, emailId } = await setup();
    const { flowId, ids } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'never-used' } },
        { name: 'tag', op: '/add-tag', config: { tag: 'crash-test' } },
        { name: 'send', op: '/send', config: { email: { id: emailId } } },
      ],
      [
        ['trigger', 'tag'],
        ['tag', 'send'],
      ],
    );
    const people = [await person(client, 'One'), await person(client, 'Two'), await person(client, 'Three')];
    await enterQuietly(
      accountId,
      flowId,
      ids.trigger!,
      people.map((p) => p.id),
    );
    const crash = new Error('worker died mid-batch');
    await expect(
      withAccount(ctx.services.db, accountId, async (db) => {
        const result = await processBatch(ctx.services, db, accountId, flowId, 100);
        expect(result.claimed).toBe(3);
        throw crash;
      }),
    ).rejects.toBe(crash);
    expect((await runsOf(accountId, flowId)).every((r) => r.status === 'active' && r.seq === 0)).toBe(true);
    expect(await tagsOf(accountId, people[0]!.id)).not.toContain('crash-test');
    expect(
      await ctx.services.db
        .selectFrom('deliveries')
        .select('id')
        .where('accountId', '=', accountId)
        .where('sourceKind', '=', 'flow')
        .execute(),
    ).toHaveLength(0);

    await runAdvanceFlow(ctx.services, { accountId, flowId });
    const runs = await runsOf(accountId, flowId);
    expect(runs.every((r) => r.status === 'done' && r.seq === 3)).toBe(true);
    expect(await duplicateSteps(accountId, flowId)).toBe(0);
    const deliveries = await ctx.services.db
      .selectFrom('deliveries')
      .select(['personId'])
      .where('accountId', '=', accountId)
      .where('sourceKind', '=', 'flow')
      .execute();
    expect(deliveries.map((d) => d.personId).sort()).toEqual(people.map((p) => p.id).sort());
    for (const p of people) await smtp.waitFor(p.email);
    for (const p of people)
      expect(smtp.received.filter((m) => JSON.stringify(m.to).includes(p.email))).toHaveLength(1);
  });

  it('an email deleted under an active flow fails its runs softly at the send step and warns on the flow', async () => {
    const { client, accountId, emailId } = await setup();
    const { flowId, ids } = await makeFlow(
      accountId,
      [
        { name: 'trigger', op: '/added-tag', config: { tag: 'never-used' } },
        { name: 'tag', op: '/add-tag', config: { tag: 'before-send' } },
        { name: 'send', op: '/send', config: { email: { id: emailId } } },
      ],
      [
        ['trigger', 'tag'],
        ['tag', 'send'],
      ],
    );
    await ctx.services.db
      .deleteFrom('emails')
      .where('accountId', '=', accountId)
      .where('id', '=', emailId)
      .execute();
    const ada = await person(client, 'Ada');
    await enterQuietly(accountId, flowId, ids.trigger!, [ada.id]);
    await runAdvanceFlow(ctx.services, { accountId, flowId });
    const [run] = await runsOf(accountId, flowId);
    expect(run).toMatchObject({
      status: 'failed',
      stepId: ids.send,
      seq: 2,
      lastError: flowMessages.emailGone(emailId),
    });
    expect(await tagsOf(accountId, ada.id)).toContain('before-send');
    const flow = await ctx.services.db
      .selectFrom('flows')
      .select('warnings')
      .where('accountId', '=', accountId)
      .where('id', '=', flowId)
      .executeTakeFirstOrThrow();
    expect(flow.warnings).toEqual([flowMessages.emailGone(emailId)]);
  });
});
