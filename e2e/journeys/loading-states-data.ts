import { expect } from 'vitest';
import { api, baseUrl, uniqueEmail, visitorAddress } from '../support/browser.ts';

/** What createData made, for the loading states' addresses: read once it has run. */
export const seeded = {
  ids: {
    person: 0,
    segment: 0,
    html: 0,
    richText: 0,
    dragDrop: 0,
    broadcast: 0,
    flow: 0,
    domain: 0,
    import: 0,
    member: 0,
  },
  shareToken: '',
  mailId: 0,
};
const ids = seeded.ids;

async function must(method: string, path: string, body: unknown, cookie: string) {
  const answer = await api(method, path, body, cookie);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

/** A person, a segment, an email in each editor, a broadcast, a flow, a domain and an import: every page has something to load. */
export async function createData(cookie: string, sender: string): Promise<void> {
  await must('POST', '/v1/fields', { items: [{ name: 'plan', title: 'Plan', type: 'string' }] }, cookie);
  ids.person = (
    await must(
      'POST',
      '/v1/people/?source=manual',
      { email: uniqueEmail('ada'), firstName: 'Ada', plan: 'pro', tags: 'customer' },
      cookie,
    )
  ).user.id;
  ids.segment = (
    await must(
      'POST',
      '/v1/segments/',
      { name: 'Customers', conditions: [{ type: 'tag', operator: 'has', tag: 'customer' }] },
      cookie,
    )
  ).segment.id;
  const html = '<p>Hello</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';
  const email = async (type: string) =>
    (
      await must(
        'POST',
        '/v1/emails',
        {
          name: `News (${type})`,
          subject: 'News',
          fromEmail: sender,
          html,
          editor: { type, state: null, html },
        },
        cookie,
      )
    ).email.id as number;
  ids.html = await email('html');
  ids.richText = await email('richtext');
  ids.dragDrop = await email('dragdrop');
  ids.broadcast = (
    await must('POST', '/v1/broadcasts', { name: 'November news', emailId: ids.html }, cookie)
  ).item.id;
  ids.flow = (await must('POST', '/v1/integrations', { name: 'Welcome' }, cookie)).integration.id;
  const step = async (operationKey: string, inputFields: unknown, y: number) =>
    (
      await must(
        'POST',
        '/v1/steps/',
        { flowId: ids.flow, operationKey, inputFields, coordinates: { x: 0, y } },
        cookie,
      )
    ).step.id as number;
  const entered = await step(
    '/entered-segment',
    { properties: { segment: { properties: { id: { value: ids.segment } } } } },
    0,
  );
  const send = await step(
    '/send',
    { properties: { email: { properties: { id: { value: ids.html } } } } },
    170,
  );
  await must('POST', '/v1/links/', { source: entered, target: send }, cookie);
  seeded.shareToken = (
    await must('GET', `/v1/integrations/${ids.flow}/share-token`, undefined, cookie)
  ).shareToken;
  seeded.mailId = (await must('GET', '/v1/dev/mailbox', undefined, cookie)).messages[0].id;
  ids.domain = (
    await must('POST', '/v1/settings/email/domains', { domain: 'loading-shop.com' }, cookie)
  ).domain.id;
  ids.member = (await must('GET', '/v1/accounts', undefined, cookie)).teamMember.id;
  const upload = await must('POST', '/v1/imports/upload-url', {}, cookie);
  const target = new URL(upload.url as string);
  const put = await fetch(`${baseUrl()}${target.pathname}${target.search}`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv', 'x-forwarded-for': visitorAddress() },
    body: `Email,First\n${uniqueEmail('grace')},Grace\n`,
  });
  expect(put.status).toBeLessThan(300);
  ids.import = (
    await must(
      'POST',
      '/v1/imports',
      {
        peopleFileKey: upload.key,
        numPeople: 1,
        fieldMapping: [
          { column: 'Email', field: 'email' },
          { column: 'First', field: 'firstName' },
        ],
      },
      cookie,
    )
  ).id;
}
