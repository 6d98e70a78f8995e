import { flowCopyMessages, flowMessages } from '@herald/contracts';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { api, createUser, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const node = (page: Page, label: string): Locator =>
  page.locator('.react-flow__node').filter({ hasText: label });

type User = Awaited<ReturnType<typeof createUser>>;

/** A flow through the API: entering a segment sends an email ("Onboarding welcome" to "Trial users"). */
async function onboardingFlow(user: User, cookie: string) {
  const html =
    '<p>Hello {{ person.firstName | default: "there" }}</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';
  const email = await api(
    'POST',
    '/v1/emails',
    {
      name: 'Onboarding welcome',
      subject: 'Welcome aboard',
      fromEmail: user.email,
      html,
      editor: { type: 'html', state: null, html },
    },
    cookie,
  );
  expect(email.status).toBe(201);
  const segment = await api(
    'POST',
    '/v1/segments/',
    { name: 'Trial users', conditions: [{ type: 'tag', operator: 'has', tag: 'trial' }] },
    cookie,
  );
  expect(segment.status).toBe(201);
  const flow = (await api('POST', '/v1/integrations', { name: 'Onboarding' }, cookie)).body.integration
    .id as number;
  const step = async (operationKey: string, inputFields: unknown, y: number) =>
    (
      await api(
        'POST',
        '/v1/steps/',
        { flowId: flow, operationKey, inputFields, coordinates: { x: 0, y } },
        cookie,
      )
    ).body.step.id as number;
  const entered = await step(
    '/entered-segment',
    { properties: { segment: { properties: { id: { value: segment.body.segment.id } } } } },
    0,
  );
  const send = await step(
    '/send',
    { properties: { email: { properties: { id: { value: email.body.email.id } } } } },
    170,
  );
  expect((await api('POST', '/v1/links/', { source: entered, target: send }, cookie)).status).toBe(201);
  return flow;
}

async function signIn(user: User) {
  const answer = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
  expect(answer.status).toBeLessThan(300);
  return answer.cookie!;
}

describe('sharing and copying flows across accounts', () => {
  it('an agency user copies a flow with its email and segment into a client sub-account and finds them there', async () => {
    const user = await createUser();
    const cookie = await signIn(user);
    const sub = await api('POST', '/v1/team-members/accounts', { name: 'Client Co' }, cookie);
    expect(sub.status).toBe(201);
    const flowId = await onboardingFlow(user, cookie);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/flows/${flowId}`);
    await page.getByRole('heading', { name: 'Onboarding', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'More flow actions' }).click();
    await page.getByRole('menuitem', { name: 'Copy flow' }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy “Onboarding”' });
    // Two accounts: a picker of the others (the current one is left out).
    const picker = dialog.getByRole('textbox', { name: flowCopyMessages.prompt });
    await expect.poll(() => picker.inputValue()).toBe('Client Co');
    const counts = dialog.getByTestId('copy-flow-counts');
    await counts.getByText('Emails: 1').waitFor();
    await counts.getByText('Segments: 1').waitFor();
    await counts.getByText('Custom Fields: 0').waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'flow-copy-to-subaccount');
    await dialog.getByRole('button', { name: 'Copy Flow' }).click();
    await page.getByText(flowMessages.copied).first().waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe(`/flows/${flowId}`);

    // In the sub-account: the flow, its email and its segment.
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Switch to Client Co' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/flows/'));
    await page.goto('/flows');
    await page.getByRole('link', { name: 'Copy of Onboarding' }).first().click();
    await page.getByRole('heading', { name: 'Copy of Onboarding', level: 1 }).waitFor();
    await node(page, 'Onboarding welcome').waitFor();
    await node(page, 'Trial users').waitFor();
    await screenshot(page, 'flow-copied-in-subaccount');
    await page.goto('/emails');
    await page.getByText('Onboarding welcome').first().waitFor();
    await page.goto('/segments');
    await page.getByText('Trial users').first().waitFor();

    // A share link of the agency's flow, opened while in the sub-account: the current account is offered first.
    const token = (await api('GET', `/v1/integrations/${flowId}/share-token`, undefined, cookie)).body
      .shareToken as string;
    await page.goto(`/flows/${flowId}?${new URLSearchParams({ 'flow-read-auth': token }).toString()}`);
    await page.getByRole('heading', { name: 'Onboarding', level: 1 }).waitFor();
    await page.getByRole('banner').getByRole('button', { name: flowCopyMessages.copyToYourAccount }).click();
    const shared = page.getByRole('dialog', { name: 'Copy “Onboarding”' });
    await expect
      .poll(() => shared.getByRole('textbox', { name: flowCopyMessages.prompt }).inputValue())
      .toBe('Client Co (this account)');
    await shared.getByTestId('copy-flow-counts').getByText('Emails: 1').waitFor();
    await shared.getByRole('textbox', { name: flowCopyMessages.prompt }).click();
    await page.getByRole('option', { name: 'Journey Tester' }).waitFor();
    await checkAccessibility(page);
    await page.getByRole('option', { name: 'Client Co (this account)' }).click();
    await shared.getByRole('button', { name: 'Copy Flow' }).click();
    await page.waitForURL(
      (url) => /^\/flows\/\d+$/.test(url.pathname) && url.pathname !== `/flows/${flowId}`,
    );
    await page.getByRole('heading', { name: 'Copy of Onboarding', level: 1 }).waitFor();
    await page.goto('/emails');
    await page.getByText('Onboarding welcome (copy)').first().waitFor();
  });

  it('a visitor opens a share link logged out, sees the flow read-only, logs in from the copy button and copies it into their own account', async () => {
    const owner = await createUser();
    const ownerCookie = await signIn(owner);
    const flowId = await onboardingFlow(owner, ownerCookie);
    const token = (await api('GET', `/v1/integrations/${flowId}/share-token`, undefined, ownerCookie)).body
      .shareToken as string;
    const link = `/flows/${flowId}?${new URLSearchParams({ 'flow-read-auth': token }).toString()}`;
    const visitor = await createUser();

    const { page } = await newPage(browser);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Onboarding', level: 1 }).waitFor();
    await page.getByText(flowMessages.readOnly).waitFor();
    await node(page, 'Onboarding welcome').waitFor();
    await node(page, 'Trial users').waitFor();
    expect(await page.getByRole('button', { name: 'Add step' }).count()).toBe(0);
    expect(await page.getByTestId('flow-people').count()).toBe(0);
    // The bar offers only the copy.
    const banner = page.getByRole('banner');
    expect(await banner.getByRole('button').allInnerTexts()).toEqual([flowCopyMessages.copyToYourAccount]);
    await checkAccessibility(page);
    await screenshot(page, 'flow-shared-logged-out');
    // A step opens for reading, without people or figures.
    await node(page, 'Onboarding welcome').click();
    await page.getByRole('heading', { name: 'Send email', level: 2 }).waitFor();
    expect(await page.getByRole('button', { name: 'Save step' }).count()).toBe(0);
    await checkAccessibility(page);
    await screenshot(page, 'flow-shared-step');
    await page.getByRole('button', { name: 'Close step' }).click();
    await page.getByRole('button', { name: 'Close step' }).waitFor({ state: 'detached' });

    await banner.getByRole('button', { name: flowCopyMessages.copyToYourAccount }).click();
    const register = page.getByRole('dialog', { name: flowCopyMessages.copyToYourAccount });
    await checkAccessibility(page);
    // Sign up starts the registration wizard, which comes back to this link when done.
    await register.getByRole('link', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Start your free trial' }).waitFor();
    expect(new URL(page.url()).searchParams.get('after-register')).toBe(link);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Onboarding', level: 1 }).waitFor();
    await page.getByRole('banner').getByRole('button', { name: flowCopyMessages.copyToYourAccount }).click();
    await register.getByRole('link', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByLabel('Email').fill(visitor.email);
    await page.getByLabel('Password').fill(visitor.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(
      (url) => url.pathname === `/flows/${flowId}` && url.searchParams.has('flow-read-auth'),
    );
    await page.getByRole('heading', { name: 'Onboarding', level: 1 }).waitFor();

    await page.getByRole('banner').getByRole('button', { name: flowCopyMessages.copyToYourAccount }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy “Onboarding”' });
    await dialog.getByText(flowCopyMessages.confirmOwn).waitFor();
    await dialog.getByTestId('copy-flow-counts').getByText('Emails: 1').waitFor();
    await dialog.getByTestId('copy-flow-counts').getByText('Segments: 1').waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'flow-shared-copy-dialog');
    await dialog.getByRole('button', { name: 'Copy Flow' }).click();
    await page.waitForURL(
      (url) =>
        /^\/flows\/\d+$/.test(url.pathname) &&
        url.pathname !== `/flows/${flowId}` &&
        !url.searchParams.has('flow-read-auth'),
    );
    await page.getByRole('heading', { name: 'Copy of Onboarding', level: 1 }).waitFor();
    await node(page, 'Onboarding welcome').waitFor();
    await page.getByRole('button', { name: 'Add step' }).waitFor();
    await screenshot(page, 'flow-shared-copied');
    const copied = await api('GET', '/v1/emails?archived=false', undefined, await signIn(visitor));
    expect(copied.body.emails.map((e: { name: string }) => e.name)).toEqual(['Onboarding welcome']);

    // On a phone the shared page keeps its one button in reach.
    const phone = await newPage(browser, { width: 390, height: 844 });
    await phone.page.goto(link);
    await phone.page.getByRole('heading', { name: 'Onboarding', level: 1 }).waitFor();
    await phone.page
      .getByRole('banner')
      .getByRole('button', { name: flowCopyMessages.copyToYourAccount })
      .waitFor();
    await checkAccessibility(phone.page);
    await screenshot(phone.page, 'flow-shared-phone');
    await phone.context.close();
  });
});
