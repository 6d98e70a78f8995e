import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeInputFields } from '@herald/contracts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { api, createUser, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
/** Stand-ins on loopback: Slack's incoming webhook (/services/…) and the marketer's own webhook receiver (/hooks). */
const slackMessages: string[] = [];
const hookCalls: {
  headers: http.IncomingHttpHeaders;
  json: { events: { type: string; data: Record<string, unknown> }[] };
}[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    if (req.url?.startsWith('/services/')) {
      slackMessages.push((JSON.parse(body) as { text: string }).text);
      // A webhook removed in Slack answers 404 no_service.
      if (req.url.endsWith('/removed')) res.writeHead(404).end('no_service');
      else res.writeHead(200).end('ok');
    } else {
      hookCalls.push({ headers: req.headers, json: JSON.parse(body) as (typeof hookCalls)[number]['json'] });
      if (hooksDown) res.writeHead(503).end('down for maintenance');
      else res.writeHead(200).end('thanks');
    }
  });
});
let base: string;
/** While true, the marketer's receiver answers 503. */
let hooksDown = false;

beforeAll(async () => {
  browser = await launchBrowser();
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('apps', () => {
  it('a marketer connects Slack, adds a webhook endpoint, and sees an event delivered in its log', async () => {
    slackMessages.length = 0;
    hookCalls.length = 0;
    hooksDown = false;
    const user = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/apps');
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Stripe' }).waitFor();
    await page.getByText('Not connected').waitFor();

    // Slack: a URL that is not Slack's is refused with the reason; the stand-in's URL connects, and a test goes out.
    const slackUrl = page.getByRole('textbox', { name: 'Incoming-webhook URL' });
    await slackUrl.fill('https://example.com/services/T1/B1/x');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByText('Use a Slack incoming-webhook URL: https://hooks.slack.com/services/…').waitFor();
    await slackUrl.fill(`${base}/services/T01/B02/secretpart`);
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByText('Slack connected.').waitFor();
    await page.getByText('Connected', { exact: true }).waitFor();
    expect(await page.getByText('secretpart').count()).toBe(0);
    await page.getByRole('button', { name: 'Send test message' }).click();
    await page.getByText('Test message sent to Slack.').waitFor();
    expect(slackMessages.at(-1)).toBe('Herald is connected to this channel. This is a test message.');

    // An outgoing webhook for new people: its secret is shown once, a test event lands in the log.
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add webhook endpoint' });
    await dialog.getByRole('textbox', { name: 'URL' }).fill(`${base}/hooks`);
    await dialog.getByRole('textbox', { name: 'Description (optional)' }).fill('CRM sync');
    await dialog.getByRole('checkbox', { name: 'Tag added' }).check();
    await checkAccessibility(page);
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const secretDialog = page.getByRole('dialog', { name: 'Endpoint added' });
    const secret = await secretDialog.getByRole('textbox', { name: 'Secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await secretDialog.getByRole('button', { name: 'Done' }).click();
    const card = page.getByRole('listitem', { name: 'CRM sync' });
    await card.getByText('Person created').waitFor();
    await card.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event delivered (200).').waitFor();

    // A real change: a person added through the API reaches the receiver and the log shows the delivery.
    const { cookie } = await api('POST', '/v1/accounts/login/', {
      email: user.email,
      password: user.password,
    });
    const person = await api('POST', '/v1/people/', { email: 'ada@example.com', tags: ['vip'] }, cookie);
    expect(person.status).toBe(201);
    await expect
      .poll(() => hookCalls.some((c) => c.json.events.some((e) => e.type === 'person.created')), {
        timeout: 15_000,
      })
      .toBe(true);
    const delivered = hookCalls.find((c) => c.json.events.some((e) => e.type === 'person.created'))!;
    expect(delivered.headers['herald-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(delivered.json.events.map((e) => e.type).sort()).toEqual(['person.created', 'tag.added']);

    await card.getByRole('button', { name: 'Delivery log' }).click();
    const log = page.getByRole('dialog', { name: 'Delivery log' });
    await log.getByRole('cell', { name: /person\.created, tag\.added/ }).waitFor();
    await log.getByRole('cell', { name: 'Test event' }).waitFor();
    await expect.poll(() => log.getByText('Delivered').count()).toBe(2);
    await checkAccessibility(page);
    await screenshot(page, 'apps-delivery-log');
    await page.keyboard.press('Escape');
    await log.waitFor({ state: 'hidden' });

    // The receiver is down: the test event fails with its answer; once it is back, the delivery is sent again from the log.
    hooksDown = true;
    await card.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('The endpoint answered 503.').first().waitFor();
    hooksDown = false;
    await card.getByRole('button', { name: 'Delivery log' }).click();
    await log.getByText('Retrying').waitFor();
    await log.getByRole('button', { name: /^Send delivery \d+ again$/ }).click();
    await page.getByText('The delivery goes out again now.').waitFor();
    await expect.poll(() => log.getByText('Delivered').count()).toBe(3);
    await page.keyboard.press('Escape');
    await log.waitFor({ state: 'hidden' });

    // Switched off from its switch, with the keyboard.
    await card.getByRole('switch').focus();
    await page.keyboard.press('Space');
    await page.getByText('Endpoint switched off.').waitFor();
    await screenshot(page, 'apps');
  });

  it("a marketer sets up a flow's Slack step; when Slack drops the webhook, the flow stops and says why", async () => {
    const user = await createUser();
    const { cookie } = await api('POST', '/v1/accounts/login/', {
      email: user.email,
      password: user.password,
    });
    const flow = (await api('POST', '/v1/integrations', { name: 'VIP alerts' }, cookie)).body.integration as {
      id: number;
    };
    const trigger = (
      await api(
        'POST',
        '/v1/steps/',
        { flowId: flow.id, operationKey: '/added-tag', inputFields: encodeInputFields({ tag: 'vip' }) },
        cookie,
      )
    ).body.step as { id: number };
    const slackStep = (
      await api(
        'POST',
        '/v1/steps/',
        { flowId: flow.id, operationKey: '/slack-notification', coordinates: { x: 0, y: 200 } },
        cookie,
      )
    ).body.step as { id: number };
    expect(
      (await api('POST', '/v1/links/', { source: trigger.id, target: slackStep.id }, cookie)).status,
    ).toBe(201);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/flows/${flow.id}`);
    await page.locator('.react-flow__node').filter({ hasText: 'Send Slack message' }).click();
    await page.getByRole('heading', { name: 'Send Slack message', level: 2 }).waitFor();
    await page.getByText('Slack is not connected yet').waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('New VIP: {{ person.email }}');
    await page.getByRole('button', { name: 'Save step' }).click();
    await page.getByTestId('save-state').getByText('All changes saved').waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'apps-slack-step');

    // Slack is connected to a webhook that Slack has since removed; the first message stops the flow.
    expect(
      (await api('POST', '/v1/auth/slack', { url: `${base}/services/T01/B02/removed` }, cookie)).status,
    ).toBe(200);
    expect((await api('PATCH', `/v1/integrations/${flow.id}`, { status: 'active' }, cookie)).status).toBe(
      200,
    );
    const person = (await api('POST', '/v1/people/', { email: 'vip@example.com' }, cookie)).body.user as {
      id: number;
    };
    await api('POST', '/v1/tags/', { tag: 'vip', id: person.id }, cookie);
    await expect
      .poll(
        async () =>
          (
            (await api('GET', `/v1/integrations/${flow.id}`, undefined, cookie)).body.integration as {
              status: string;
            }
          ).status,
      )
      .toBe('deactivated-expired-auth');

    await page.goto('/flows');
    await page.getByText('Stopped: a connection expired').waitFor();
    await page.goto(`/flows/${flow.id}`);
    await page
      .getByText(/Slack no longer accepts the connection this flow posts to \(wrong_credentials\)/)
      .waitFor();
    await page.goto('/apps');
    await page.getByText('Connection failed').waitFor();
    await page.getByText("Slack stopped accepting Herald's messages").waitFor();
    await screenshot(page, 'apps-slack-failed');
    // Reconnected to a working webhook: the flow's warning goes; the flow waits to be switched on again.
    await page.getByRole('textbox', { name: 'Incoming-webhook URL' }).fill(`${base}/services/T01/B02/fresh`);
    await page.getByRole('button', { name: 'Reconnect' }).click();
    await page.getByText('Slack connected.').waitFor();
    await page.getByRole('button', { name: 'Send test message' }).waitFor();
    const after = (await api('GET', `/v1/integrations/${flow.id}`, undefined, cookie)).body.integration as {
      status: string;
      warnings: string[];
    };
    expect(after.warnings.some((w) => w.includes('wrong_credentials'))).toBe(false);
  });

  it('reads well on a phone', async () => {
    const user = await createUser();
    const { page } = await newPage(browser, { width: 390, height: 844 });
    await logIn(page, user.email, user.password, '/settings/apps');
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Typeform' }).waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'apps-phone');
  });
});
