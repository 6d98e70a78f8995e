import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeInputFields } from '@herald/contracts';
import { Client, registerUser, type ApiResponse, type TestContext } from '../helpers.ts';

/**
 * An account that holds one of everything the API can reach by id or by name, each marked with the account's
 * canary where the thing has a text of its own. The isolation probe walks every route with these ids from another
 * account; the fuzzer signs in as such an account so that its requests meet real rows.
 */
export type Owner = Awaited<ReturnType<typeof registerUser>>;

export interface SeededAccount {
  owner: Owner;
  accountId: number;
  canary: string;
  apiKey: string;
  writeKey: string;
  /** Numeric ids by kind: every `:id`-like path parameter is tried with each of them. */
  ids: Record<string, number>;
  /** Values of the named path parameters (`:name`, `:tag`, `:email`, `:number`...). */
  names: {
    field: string;
    tag: string;
    senderEmail: string;
    suppressionEmail: string;
    versionNumber: number;
    shareToken: string;
  };
  /** People and flows for the token swaps. */
  personId: number;
  otherPersonId: number;
  personEmail: string;
  flowId: number;
  otherFlowId: number;
  emailId: number;
  categoryId: number;
  transactionalDeliveryId: number;
  logoUrl: string;
}

/** A local HTTP receiver that answers 200 to anything: webhook endpoints and the Slack connection point at it. */
export async function startReceiver() {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, hits, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function must<T = any>(
  res: ApiResponse<T>,
  what: string,
  statuses: number[] = [200, 201, 202, 204],
): ApiResponse<T> {
  if (!statuses.includes(res.status))
    throw new Error(`seeding: ${what} answered ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res;
}

/** The number at `path` (dotted) of a successful answer. */
function idOf(res: ApiResponse, what: string, path: string): number {
  must(res, what);
  const value = path.split('.').reduce<any>((at, key) => at?.[key], res.body);
  if (typeof value !== 'number')
    throw new Error(`seeding: ${what} has no ${path} in ${JSON.stringify(res.body).slice(0, 300)}`);
  return value;
}

/** A PNG of one pixel. */
const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/**
 * Register an account and give it one of everything. `receiverBase` is the local receiver's URL (the context
 * must trust 127.0.0.1 for outgoing calls and Slack hosts, as the Slack and webhook tests do).
 */
export async function seedAccount(
  ctx: TestContext,
  receiverBase: string,
  label = 'A',
): Promise<SeededAccount> {
  const canary = `CANARY${label}${crypto.randomBytes(5).toString('hex')}`;
  const lower = canary.toLowerCase();
  const owner = await registerUser(ctx.app);
  const c = owner.client;
  const accountId = owner.account.accountId as number;
  const db = ctx.services.db;
  const ids: Record<string, number> = {
    account: accountId,
    ownerMember: owner.account.teamMemberId as number,
  };

  must(
    await c.patch('/v1/accounts/me', { name: canary, mailingAddress: `${canary} street 1, Town` }),
    'account',
  );
  const teammate = must(
    await c.post('/v1/team-members', { name: canary, email: `${lower}-mate@example.com` }),
    'teammate',
  );
  ids.teammate = teammate.body.teamMember.id;
  ids.subaccount = idOf(
    await c.post('/v1/team-members/accounts', { name: canary, timezone: 'UTC' }),
    'sub-account',
    'subaccount.id',
  );
  const apiKey = must(await c.post('/v1/accounts/rotate-api-key'), 'api key').body.apiKey as string;
  await db.insertInto('accountIssues').values({ accountId, kind: 'probe', message: canary }).execute();
  ids.issue = (
    await db
      .selectFrom('accountIssues')
      .select('id')
      .where('accountId', '=', accountId)
      .executeTakeFirstOrThrow()
  ).id;

  // People, fields, tags, segments, folders.
  const field = `f${lower}`;
  must(await c.post('/v1/fields', { items: [{ name: field, title: canary, type: 'string' }] }), 'field');
  const tag = lower;
  must(await c.post('/v1/tags-management', { tags: [{ tag, description: canary }] }), 'tag');
  const personEmail = `${lower}-person@example.com`;
  const person = must(
    await c.post('/v1/people/', { email: personEmail, firstName: canary, tags: tag, [field]: canary }),
    'person',
  );
  const other = must(
    await c.post('/v1/people/', { email: `${lower}-other@example.com`, lastName: canary }),
    'other person',
  );
  ids.person = person.body.user.id;
  ids.otherPerson = other.body.user.id;
  ids.segment = idOf(
    await c.post('/v1/segments/', { name: canary, conditions: [{ type: 'tag', operator: 'has', tag }] }),
    'segment',
    'segment.id',
  );
  ids.folder = idOf(
    await c.post('/v1/folders', { folderType: 'tags', name: canary, color: '#4c6ef5' }),
    'folder',
    'folder.id',
  );

  // Sending: a verified sender, a domain, a suppression, a category, quiet hours, an email.
  const senderEmail = `${lower}-sender@example.com`;
  await db
    .insertInto('senderAddresses')
    .values({ accountId, email: senderEmail, status: 'verified', verifiedAt: new Date() })
    .execute();
  must(
    await c.post('/v1/settings/email/addresses', { email: `${lower}-pending@example.com` }),
    'sender address',
  );
  ids.domain = idOf(
    await c.post('/v1/settings/email/domains', { domain: `${lower}.example.com` }),
    'domain',
    'domain.id',
  );
  const suppressionEmail = `${lower}-suppressed@example.com`;
  must(await c.post('/v1/suppressions', { emails: [suppressionEmail], note: canary }), 'suppression');
  ids.category = idOf(
    await c.post('/v1/settings/communication-categories', { name: canary, description: canary }),
    'category',
    'category.id',
  );
  must(
    await c.request('PUT', '/v1/settings/quiet-hours', {
      body: { enabled: true, start: '21:00', end: '08:00' },
    }),
    'quiet hours',
  );
  const email = must(
    await c.post('/v1/emails', {
      name: canary,
      subject: `Hello ${canary}`,
      fromEmail: senderEmail,
      html: `<p>${canary} <a href="https://${lower}.example.com/page">site</a></p>`,
    }),
    'email',
  );
  ids.email = email.body.email.id;

  // A broadcast with its email, and a transactional send (a delivery).
  ids.broadcast = idOf(await c.post('/v1/broadcasts', { name: canary }), 'broadcast', 'item.id');
  must(
    await c.patch(`/v1/broadcasts/${ids.broadcast}`, { emailId: ids.email, audience: { type: 'all' } }),
    'broadcast email',
  );
  const transactional = must(
    await new Client(ctx.app).post(
      '/v1/transactional/send',
      { emailId: ids.email, to: personEmail, data: { note: canary } },
      { origin: null, headers: { authorization: `Bearer ${apiKey}` } },
    ),
    'transactional send',
  );
  ids.transactionalDelivery = transactional.body.deliveryId ?? transactional.body.id;

  // Flows: two, with steps, a link, a version (switched on), a goal, a share token.
  const flow = must(await c.post('/v1/integrations', { name: canary }), 'flow').body.integration;
  const otherFlow = must(await c.post('/v1/integrations', { name: `${canary} two` }), 'second flow').body
    .integration;
  ids.flow = flow.id;
  ids.otherFlow = otherFlow.id;
  const trigger = must(
    await c.post('/v1/steps/', {
      flowId: flow.id,
      operationKey: '/added-tag',
      inputFields: encodeInputFields({ tag }),
    }),
    'trigger',
  ).body.step;
  const action = must(
    await c.post('/v1/steps/', {
      flowId: flow.id,
      operationKey: '/add-tag',
      inputFields: encodeInputFields({ tag: `${tag}-done` }),
    }),
    'step',
  ).body.step;
  ids.step = trigger.id;
  ids.otherStep = action.id;
  ids.link = idOf(await c.post('/v1/links/', { source: trigger.id, target: action.id }), 'link', 'link.id');
  must(
    await c.request('PUT', `/v1/integrations/${flow.id}/goal`, {
      body: { conditions: [{ type: 'tag', operator: 'has', tag }] },
    }),
    'goal',
  );
  must(await c.patch(`/v1/integrations/${flow.id}`, { status: 'active' }), 'flow on');
  const versions = must(await c.get(`/v1/integrations/${flow.id}/versions`), 'versions').body
    .versions as Array<{ number: number }>;
  const shareToken = must(await c.get(`/v1/integrations/${flow.id}/share-token`), 'share token').body
    .shareToken as string;

  // Imports, bulk actions and exports.
  const upload = must(await c.post('/v1/imports/upload-url'), 'upload url').body;
  const put = await ctx.app.inject({
    method: 'PUT',
    url: new URL(upload.url).pathname + new URL(upload.url).search,
    headers: { 'content-type': 'text/csv' },
    payload: `Email,First\n${lower}-imported@example.com,${canary}\n`,
  });
  if (put.statusCode !== 204) throw new Error(`seeding: import upload answered ${put.statusCode}`);
  ids.import = idOf(
    await c.post('/v1/imports', {
      name: canary,
      peopleFileKey: upload.key,
      numPeople: 1,
      fieldMapping: [{ column: 'Email', field: 'email' }],
      tags: [tag],
    }),
    'import',
    'id',
  );
  const exported = must(
    await c.post('/v1/people/export', { notifyEmail: owner.email, people: [ids.person] }),
    'export',
  );
  ids.bulkAction = exported.body.bulkActionId;

  // Apps: a webhook endpoint with a delivery, the Slack connection.
  ids.webhookEndpoint = idOf(
    await c.post('/v1/webhook-endpoints', {
      url: `${receiverBase}/hook`,
      events: ['person.created'],
      description: canary,
    }),
    'webhook endpoint',
    'endpoint.id',
  );
  must(await c.post(`/v1/webhook-endpoints/${ids.webhookEndpoint}/test`), 'webhook test');
  const deliveries = must(
    await c.get(`/v1/webhook-endpoints/${ids.webhookEndpoint}/deliveries`),
    'webhook deliveries',
  ).body.deliveries as Array<{ id: number }>;
  if (deliveries[0]) ids.webhookDelivery = deliveries[0].id;
  must(await c.post('/v1/auth/slack', { url: `${receiverBase}/services/T0001/B0001/${lower}` }), 'slack');

  // A logo (a stored file), and an event.
  const logo = must(await c.post('/v1/accounts/logo', { contentType: 'image/png' }), 'logo').body;
  const logoPut = await ctx.app.inject({
    method: 'PUT',
    url: new URL(logo.url).pathname + new URL(logo.url).search,
    headers: { 'content-type': 'image/png' },
    payload: png,
  });
  if (logoPut.statusCode !== 204) throw new Error(`seeding: logo upload answered ${logoPut.statusCode}`);
  must(await c.patch('/v1/accounts/me', { logo: logo.publicUrl }), 'logo saved');

  const writeKey = (
    await db.selectFrom('accounts').select('writeKey').where('id', '=', accountId).executeTakeFirstOrThrow()
  ).writeKey as string;
  must(
    await new Client(ctx.app).post(
      '/v1/ingest',
      { type: 'track', email: personEmail, name: canary },
      { origin: null, headers: { 'x-write-key': writeKey } },
    ),
    'event',
  );
  const events = must(await c.get(`/v1/people/${ids.person}/events`), 'events').body;
  const firstEvent = (events.events ?? events.items ?? [])[0] as { id?: number } | undefined;
  if (firstEvent?.id) ids.event = firstEvent.id;

  return {
    owner,
    accountId,
    canary,
    apiKey,
    writeKey,
    ids,
    names: { field, tag, senderEmail, suppressionEmail, versionNumber: versions[0]?.number ?? 1, shareToken },
    personId: ids.person!,
    otherPersonId: ids.otherPerson!,
    personEmail,
    flowId: flow.id,
    otherFlowId: otherFlow.id,
    emailId: ids.email!,
    categoryId: ids.category!,
    transactionalDeliveryId: ids.transactionalDelivery!,
    logoUrl: logo.publicUrl as string,
  };
}
