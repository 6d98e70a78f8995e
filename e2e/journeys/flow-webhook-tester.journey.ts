import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeInputFields } from '@herald/contracts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
const calls: { headers: http.IncomingHttpHeaders; body: string }[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    calls.push({ headers: req.headers, body });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"thanks":"got it"}');
  });
});
let receiverUrl: string;

beforeAll(async () => {
  browser = await launchBrowser();
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/herald`;
});
afterAll(async () => {
  await browser.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('webhook tester', () => {
  it('a marketer sends a test request from a Send webhook step, reads the answer, and is told when an address is refused', async () => {
    const user = await createUser();
    const { cookie } = await api('POST', '/v1/accounts/login/', {
      email: user.email,
      password: user.password,
    });
    const flow = (await api('POST', '/v1/integrations', { name: 'CRM sync' }, cookie)).body.integration as {
      id: number;
    };
    const step = await api(
      'POST',
      '/v1/steps/',
      {
        flowId: flow.id,
        operationKey: '/send-webhook',
        inputFields: encodeInputFields({ url: receiverUrl }),
      },
      cookie,
    );
    expect(step.status).toBe(201);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/flows/${flow.id}`);
    await page.locator('.react-flow__node').filter({ hasText: 'Send webhook' }).click();
    await page.getByRole('heading', { name: 'Send webhook', level: 2 }).waitFor();

    await page.getByRole('button', { name: 'Send test request' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Answered 200 in \d+ ms/ })
      .waitFor();
    await page.getByText('{"thanks":"got it"}').waitFor();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers['x-herald-test']).toBe('1');
    expect(JSON.parse(calls[0]!.body)).toMatchObject({
      test: true,
      person: { email: 'jane.doe@example.com' },
    });
    await screenshot(page, 'flow-webhook-tester');

    // The URL on screen is tested before it is saved; a metadata address is refused and nothing is called.
    const url = page.getByRole('textbox', { name: 'URL' });
    await url.fill('http://169.254.169.254/latest/meta-data');
    await page.getByRole('button', { name: 'Send test request' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Webhooks cannot call private, loopback or link-local addresses.' })
      .waitFor();
    expect(calls).toHaveLength(1);
  });
});
