import type { Locator, Page } from 'playwright-core';
import { uniqueEmail } from '../support/browser.ts';
import { holdAccount, holdAll, holdPath, isEditorCode, type Held } from '../support/request-gate.ts';
import { seeded } from './loading-states-data.ts';

const { ids } = seeded;

export interface LoadingState {
  name: string;
  path: () => string;
  /** What is held back while the check runs; the page's own API calls unless said. */
  held?: Held;
  /** The accessible name of the status the loading state shows (a spinner, a skeleton), or the loader itself. */
  loader: string | ((page: Page) => Locator);
  /** A state an action brings: the page loads with nothing held and `ready` waits for it; then `act` runs, `held` held. */
  after?: { ready: (page: Page) => Promise<void>; act: (page: Page) => Promise<void> };
  isSignedOut?: boolean;
  screenshot?: string;
}

/** Pick an option of a segmented control (its radio is visually hidden under the label). */
const choose = (page: Page, name: string) =>
  page.getByRole('radio', { name }).evaluate((radio: HTMLInputElement) => radio.click());

// Every route of apps/web/src/app/routes.tsx (aliases once), plus the loading states that come after the first.
export const states: LoadingState[] = [
  { name: 'the session check', path: () => '/people', held: holdAll, loader: 'Checking your session' },
  { name: 'the account', path: () => '/people', held: holdAccount, loader: 'Loading your account' },
  { name: 'dashboard', path: () => '/dashboard', loader: 'Loading the dashboard' },
  // Start, account, profile, email fonts and an import's upload step need nothing but the account.
  { name: 'start', path: () => '/start/import', held: holdAccount, loader: 'Loading your account' },
  { name: 'people', path: () => '/people', loader: 'Loading people', screenshot: 'loading-people' },
  { name: 'a person', path: () => `/people/${ids.person}`, loader: 'Loading person' },
  { name: 'segments', path: () => '/segments', loader: 'Loading people' },
  { name: 'a segment', path: () => `/segments/${ids.segment}`, loader: 'Loading people' },
  {
    name: "a segment's count",
    path: () => `/segments/${ids.segment}`,
    held: holdPath(/^\/v1\/segments\/\d+\/preview$/),
    loader: (page) => page.getByLabel('People in this segment').locator('.mantine-Loader-root'),
  },
  { name: 'imports', path: () => '/people/imports', loader: 'Loading imports' },
  { name: 'an import', path: () => `/people/imports/${ids.import}`, loader: 'Loading import' },
  {
    name: 'a new import',
    path: () => '/people/imports/new/upload',
    held: holdAccount,
    loader: 'Loading your account',
  },
  { name: 'emails', path: () => '/emails', loader: 'Loading emails' },
  {
    name: 'a new email',
    path: () => '/emails?new=1',
    held: holdPath(/^\/v1\/emails\/templates/),
    loader: 'Loading templates',
  },
  { name: 'an email', path: () => `/emails/${ids.html}`, loader: 'Loading email' },
  {
    name: 'the HTML editor',
    path: () => `/emails/${ids.html}`,
    held: isEditorCode,
    loader: 'Loading the editor',
    screenshot: 'loading-html-editor',
  },
  {
    name: 'the rich-text editor',
    path: () => `/emails/${ids.richText}`,
    held: isEditorCode,
    loader: 'Loading the editor',
  },
  {
    name: 'the drag-and-drop editor',
    path: () => `/emails/${ids.dragDrop}`,
    held: isEditorCode,
    loader: 'Loading the editor',
  },
  {
    name: "an email's figures",
    path: () => `/emails/${ids.html}`,
    held: holdPath(/^\/v1\/emails\/stats$/),
    after: {
      ready: (page) => page.getByRole('radio', { name: 'Performance' }).waitFor({ state: 'attached' }),
      act: (page) => choose(page, 'Performance'),
    },
    loader: 'Loading the figures',
  },
  { name: 'broadcasts', path: () => '/broadcasts', loader: 'Loading broadcasts' },
  { name: 'a broadcast', path: () => `/broadcasts/${ids.broadcast}`, loader: 'Loading broadcast' },
  {
    name: "a broadcast's audience, counted again",
    path: () => `/broadcasts/${ids.broadcast}`,
    held: holdPath(/^\/v1\/broadcasts\/audience-count$/),
    after: {
      ready: (page) => page.getByTestId('recipient-count').waitFor(),
      act: async (page) => {
        await choose(page, 'Segments');
        await page.getByRole('textbox', { name: 'Segments', exact: true }).click();
        await page.getByRole('option', { name: 'Customers' }).click();
        await page.keyboard.press('Escape');
      },
    },
    loader: (page) => page.getByRole('status').filter({ hasText: 'Updating the count' }),
    screenshot: 'loading-audience-count',
  },
  { name: 'flows', path: () => '/flows', loader: 'Loading flows' },
  { name: 'a flow', path: () => `/flows/${ids.flow}`, loader: 'Loading the flow' },
  { name: 'metrics', path: () => '/metrics', loader: 'Loading metrics', screenshot: 'loading-metrics' },
  {
    name: "a flow's conversions",
    path: () => `/metrics?flow=${ids.flow}`,
    held: holdPath(/^\/v1\/integrations\/\d+\/conversions$/),
    loader: 'Loading conversions',
  },
  { name: 'apps', path: () => '/apps', loader: 'Loading apps' },
  { name: 'billing', path: () => '/settings/billing', loader: 'Loading plan and billing' },
  { name: 'account', path: () => '/settings/account', held: holdAccount, loader: 'Loading your account' },
  { name: 'profile', path: () => '/settings/profile', held: holdAccount, loader: 'Loading your account' },
  { name: 'team', path: () => '/settings/team', loader: 'Loading team members' },
  {
    name: 'a team member',
    path: () => `/settings/team?team-member=${ids.member}`,
    loader: 'Loading team member',
  },
  { name: 'accounts', path: () => '/settings/accounts', loader: 'Loading accounts' },
  { name: 'site tracking', path: () => '/settings/site-tracking', loader: 'Loading site tracking' },
  {
    name: 'tracked forms',
    path: () => '/settings/site-tracking/forms',
    loader: 'Loading forms',
    screenshot: 'loading-tracked-forms',
  },
  {
    name: 'a tracked form',
    path: () => '/settings/site-tracking/forms/edit?hash=none',
    loader: 'Loading form',
  },
  { name: 'sender addresses', path: () => '/settings/email/addresses', loader: 'Loading sender addresses' },
  { name: 'sender domains', path: () => '/settings/email/domains', loader: 'Loading domains' },
  { name: 'a sender domain', path: () => `/settings/email/domains/${ids.domain}`, loader: 'Loading domain' },
  { name: 'categories', path: () => '/settings/communication-categories', loader: 'Loading categories' },
  {
    name: 'suppressions',
    path: () => '/settings/email/suppressions',
    loader: 'Loading the suppression list',
  },
  {
    name: 'email fonts',
    path: () => '/settings/email/fonts',
    held: holdAccount,
    loader: 'Loading your account',
  },
  { name: 'email settings', path: () => '/settings/email/general', loader: 'Loading quiet hours' },
  { name: 'custom fields', path: () => '/settings/person-fields', loader: 'Loading fields' },
  { name: 'tags', path: () => '/settings/tags', loader: 'Loading tags' },
  {
    name: 'a shared flow',
    path: () => `/flows/${ids.flow}?flow-read-auth=${seeded.shareToken}`,
    isSignedOut: true,
    loader: 'Loading the flow',
  },
  {
    name: 'registration',
    path: () => '/register',
    isSignedOut: true,
    held: holdAll,
    loader: 'Loading your account',
  },
  {
    name: 'subscription preferences',
    path: () => '/public/subscription-preferences?token=held',
    isSignedOut: true,
    held: holdAll,
    loader: 'Loading your preferences',
  },
  {
    name: 'unsubscribe',
    path: () => '/public/unsubscribe?token=held',
    isSignedOut: true,
    held: holdAll,
    loader: 'Unsubscribing you',
  },
  {
    name: 'sender verification',
    path: () => '/public/verify-sender?token=held',
    isSignedOut: true,
    held: holdAll,
    loader: 'Verifying your address',
  },
  {
    name: 'a subscription confirmation',
    path: () => '/public/confirm-subscription?token=held',
    isSignedOut: true,
    held: holdAll,
    loader: 'Confirming your subscription',
  },
  {
    name: 'an invitation',
    path: () => '/public/accept-invite?token=held',
    isSignedOut: true,
    held: holdAll,
    loader: 'Loading your invitation',
  },
  {
    name: 'a marketplace registration',
    path: () => '/public/register/appsumo',
    isSignedOut: true,
    held: holdAll,
    loader: 'Loading',
  },
  {
    name: 'the development mailbox',
    path: () => '/dev/mailbox',
    isSignedOut: true,
    held: holdAll,
    loader: 'Loading',
  },
  {
    name: "the development mailbox's mail",
    path: () => '/dev/mailbox',
    isSignedOut: true,
    held: holdPath(/^\/v1\/dev\/mailbox$/),
    loader: 'Loading mail',
  },
  {
    name: 'a message in the development mailbox',
    path: () => `/dev/mailbox?id=${seeded.mailId}`,
    isSignedOut: true,
    held: holdPath(/^\/v1\/dev\/mailbox\/\d+$/),
    loader: 'Loading message',
  },
  // Login, password reset, the legal pages and the error page draw at once; a form's button shows a loader as it sends.
  {
    name: 'a login on its way',
    path: () => '/login',
    isSignedOut: true,
    held: holdPath(/^\/v1\/accounts\/login/),
    after: {
      ready: (page) => page.getByLabel('Email').waitFor(),
      act: async (page) => {
        // A wrong password: the page stays signed out for the states after it.
        await page.getByLabel('Email').fill(uniqueEmail('nobody'));
        await page.getByLabel('Password').fill('not the password');
        await page.getByRole('button', { name: 'Log in' }).click();
      },
    },
    loader: (page) => page.getByRole('button', { name: 'Log in' }).locator('.mantine-Loader-root'),
  },
];
