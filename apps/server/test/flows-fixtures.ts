import { encodeInputFields, type Flow, type Step } from '@herald/contracts';
import { expect } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { Client, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the flows API tests share: a server with a worker and an SMTP sink, and the calls that build flows.
 * Each test file that calls useFlowsContext() gets a server of its own (see useSmtpContext).
 */
let ctx: TestContext;
let smtp: SmtpSink;

export function useFlowsContext(): () => TestContext {
  useSmtpContext({ MAIL_FROM: 'Herald <no-reply@herald.test>' }, (readyCtx, readySmtp) => {
    ctx = readyCtx;
    smtp = readySmtp;
  });
  return () => ctx;
}

/** The SMTP sink the flows' mail goes to. */
export const smtpSink = () => smtp;

export type Owner = Awaited<ReturnType<typeof registerUser>>;
export const accountOf = (owner: Owner) => owner.account.accountId as number;
export const fields = (config: Record<string, unknown>) => encodeInputFields(config);
export const inADay = () => new Date(Date.now() + 86_400_000).toISOString();

export async function newFlow(client: Client, name?: string): Promise<Flow> {
  const res = await client.post('/v1/integrations', name === undefined ? {} : { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.integration;
}

export async function addStep(
  client: Client,
  flowId: number,
  operationKey: string,
  config?: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<Step> {
  const res = await client.post('/v1/steps/', {
    flowId,
    operationKey,
    ...(config ? { inputFields: fields(config) } : {}),
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.step;
}

export async function link(client: Client, source: number, target: number, condition?: string) {
  const res = await client.post('/v1/links/', {
    source,
    target,
    ...(condition !== undefined ? { condition } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.link as { id: number; source: number; target: number; condition: string | null };
}

/** An email whose sender is verified unless asked otherwise. */
export async function email(owner: Owner, verified = true) {
  const fromEmail = uniqueEmail('sender');
  const res = await owner.client.post('/v1/emails', newEmail({ fromEmail }));
  expect(res.status).toBe(201);
  if (verified)
    await ctx.services.db
      .insertInto('senderAddresses')
      .values({ accountId: accountOf(owner), email: fromEmail, status: 'verified' })
      .execute();
  return { id: res.body.email.id as number, fromEmail };
}

export async function segment(owner: Owner, name = 'Customers') {
  const res = await owner.client.post('/v1/segments/', {
    name,
    conditions: [{ type: 'tag', operator: 'has', tag: 'customer' }],
  });
  expect(res.status).toBe(201);
  return res.body.segment.id as number;
}

/** A runnable flow: tag added → send email (→ nothing). */
export async function sendFlow(owner: Owner, emailId: number) {
  const flow = await newFlow(owner.client, 'Welcome');
  const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'trial' });
  const send = await addStep(owner.client, flow.id, '/send', { email: { id: emailId } });
  await link(owner.client, trigger.id, send.id);
  return { flow, trigger, send };
}

export const activate = (client: Client, id: number, status = 'active') =>
  client.patch(`/v1/integrations/${id}`, { status });
