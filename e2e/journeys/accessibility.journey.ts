import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import {
  api,
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  uniqueEmail,
} from '../support/browser.ts';

// Every journey is checked with axe as it goes (support/accessibility.ts); this one opens the main pages
// once each with real data, so that their state is shown directly, page by page.

let browser: Browser;
let signedOut: Page;
let signedIn: Page;
let personId: number;
let segmentId: number;
const personEmail = uniqueEmail('ada');

beforeAll(async () => {
  browser = await launchBrowser();
  const owner = await createUser();
  const session = await api('POST', '/v1/accounts/login/', { email: owner.email, password: owner.password });
  // Enough data that the lists, the person and the segment show rows, tags and fields rather than empty states.
  const field = { name: 'plan', title: 'Plan', type: 'string' };
  expect((await api('POST', '/v1/fields', { items: [field] }, session.cookie)).status).toBe(201);
  const person = await api(
    'POST',
    '/v1/people/?source=manual',
    { email: personEmail, firstName: 'Ada', lastName: 'Lovelace', plan: 'pro', tags: 'vip, customer' },
    session.cookie,
  );
  expect(person.status).toBe(201);
  personId = person.body.user.id;
  await api(
    'POST',
    '/v1/people/?source=manual',
    { email: uniqueEmail('grace'), firstName: 'Grace', plan: 'free', tags: 'lead' },
    session.cookie,
  );
  const segment = await api(
    'POST',
    '/v1/segments/',
    { name: 'Pro customers', conditions: [{ type: 'tag', operator: 'has', tag: 'customer' }] },
    session.cookie,
  );
  expect(segment.status).toBe(201);
  segmentId = segment.body.segment.id;

  signedOut = (await newPage(browser)).page;
  signedIn = (await newPage(browser)).page;
  await logIn(signedIn, owner.email, owner.password);
});
afterAll(() => browser.close());

interface PageUnderTest {
  name: string;
  path: () => string;
  isSignedIn: boolean;
  /** Text that shows once the page's data has loaded. */
  ready: (page: Page) => Promise<void>;
  screenshot?: string;
}

const heading = (name: string | RegExp) => (page: Page) =>
  page.getByRole('heading', { name }).first().waitFor();

const pages: PageUnderTest[] = [
  {
    name: 'login',
    path: () => '/login',
    isSignedIn: false,
    ready: heading(/log in/i),
    screenshot: 'a11y-login',
  },
  {
    name: 'register',
    path: () => '/register',
    isSignedIn: false,
    ready: (page) => page.getByLabel('Email').waitFor(),
  },
  {
    name: 'reset password',
    path: () => '/request-reset-password',
    isSignedIn: false,
    ready: (page) => page.getByLabel('Email').waitFor(),
  },
  {
    name: 'two-factor sign-in',
    path: () => '/login/two-factor',
    isSignedIn: false,
    ready: heading('Two-factor sign-in'),
  },
  { name: 'start', path: () => '/start', isSignedIn: true, ready: heading('Quick Start') },
  {
    name: 'people',
    path: () => '/people',
    isSignedIn: true,
    ready: (page) => page.getByRole('link', { name: personEmail }).waitFor(),
    screenshot: 'a11y-people',
  },
  {
    name: 'a person',
    path: () => `/people/${personId}`,
    isSignedIn: true,
    ready: heading('Ada Lovelace'),
    screenshot: 'a11y-person',
  },
  {
    name: 'a segment',
    path: () => `/segments/${segmentId}`,
    isSignedIn: true,
    ready: (page) => page.getByRole('link', { name: personEmail }).waitFor(),
  },
  {
    name: 'new import',
    path: () => '/people/imports/new',
    isSignedIn: true,
    ready: (page) => page.getByLabel('CSV file').waitFor({ state: 'attached' }),
  },
  {
    name: 'team',
    path: () => '/settings/team',
    isSignedIn: true,
    ready: (page) => page.getByText('Journey Tester').first().waitFor(),
  },
  {
    name: 'account',
    path: () => '/settings/account',
    isSignedIn: true,
    // The single sign-on section, last to load, in its empty state.
    ready: (page) => page.getByRole('button', { name: 'Set up single sign-on' }).waitFor(),
  },
  {
    name: 'profile',
    path: () => '/settings/profile',
    isSignedIn: true,
    ready: (page) => page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor(),
  },
  {
    name: 'tags',
    path: () => '/settings/tags',
    isSignedIn: true,
    ready: (page) => page.getByRole('cell', { name: 'customer', exact: true }).waitFor(),
  },
  {
    name: 'custom fields',
    path: () => '/settings/person-fields',
    isSignedIn: true,
    ready: (page) => page.getByText('Plan', { exact: true }).first().waitFor(),
  },
  { name: 'accounts', path: () => '/settings/accounts', isSignedIn: true, ready: heading(/accounts/i) },
  {
    name: 'audit log',
    path: () => '/settings/audit-log',
    isSignedIn: true,
    ready: (page) => page.getByRole('table', { name: 'Audit log entries' }).waitFor(),
  },
];

describe('accessibility: axe finds no serious or critical violation', () => {
  it.each(pages)('on $name', async (target) => {
    const page = target.isSignedIn ? signedIn : signedOut;
    await page.goto(target.path());
    await target.ready(page);
    await checkAccessibility(page);
    if (target.screenshot) await screenshot(page, target.screenshot);
  });

  it('with a dialog and then a menu open', async () => {
    await signedIn.goto('/people');
    await signedIn.getByRole('link', { name: personEmail }).waitFor();
    await signedIn.getByRole('button', { name: 'Add person' }).first().click();
    await signedIn.getByRole('dialog').getByRole('textbox', { name: 'Email' }).waitFor();
    await checkAccessibility(signedIn);
    await screenshot(signedIn, 'a11y-add-person');
    await signedIn.keyboard.press('Escape');
    await signedIn.getByRole('dialog').waitFor({ state: 'hidden' });

    await signedIn.getByRole('button', { name: 'Profile menu' }).click();
    await signedIn.getByRole('menuitem', { name: 'Journey Tester (current account)' }).waitFor();
    await checkAccessibility(signedIn);
    await signedIn.keyboard.press('Escape');
  });
});
