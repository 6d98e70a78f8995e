import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibilityNow, flushAccessibility } from '../support/accessibility.ts';
import { api, baseUrl, launchBrowser, logIn, newPage, screenshot, uniqueEmail, visitorAddress } from '../support/browser.ts';
import { verifiedMarketer } from '../support/marketer.ts';

// Journeys check pages once they settle (support/accessibility.ts), when their loaders have gone. This one holds
// the API's answers back, so each page's loading state stays on screen, and checks that state with axe while a
// loader shows (docs/web-app.md, "Every journey runs axe on every page state it reaches").

/** Which of a page's requests are held: the API (/v1/…) and the email editors' code. */
type Held = (url: URL) => boolean;

/** The session check and the account, which every signed-in page waits for before it draws its own loading state. */
const bootPaths: ReadonlySet<string> = new Set(['/v1/heartbeat/authenticated', '/v1/accounts']);
const isApi = (url: URL) => url.pathname.startsWith('/v1/');
/** Each email editor is a chunk of its own (email-page.tsx loads it lazily). */
const isEditorCode = (url: URL) => /\/assets\/(html|rich-text|drag-drop)-editor-[^/]*\.js$/.test(url.pathname);
const holdAll: Held = (url) => isApi(url);
/** The page's own calls; the session and the account go through, so the app shell and the page draw. */
const holdPageData: Held = (url) => isApi(url) && !bootPaths.has(url.pathname);
/** The account held: a page that needs no more than the account shows the app's own loader until it comes. */
const holdAccount: Held = (url) => isApi(url) && url.pathname !== '/v1/heartbeat/authenticated';
const holdPath =
  (pattern: RegExp): Held =>
  (url) =>
    pattern.test(url.pathname);

/**
 * Holds the requests `held` names until the journey lets them go (or the page leaves): a loading state stays on
 * screen for as long as its check takes, however busy the machine, where a fixed delay would race the check.
 */
class RequestGate {
  private held: Held = () => false;
  private readonly waiting = new Set<{ url: URL; go: () => void }>();

  static async on(page: Page): Promise<RequestGate> {
    const gate = new RequestGate();
    await page.route(
      (url) => isApi(url) || isEditorCode(url),
      async (route) => {
        const url = new URL(route.request().url());
        if (gate.held(url)) await new Promise<void>((go) => gate.waiting.add({ url, go }));
        // A request the page gave up meanwhile (it navigated) cannot go on; nothing waits for it.
        await route.continue().catch(() => undefined);
      },
    );
    return gate;
  }

  hold(held: Held): void {
    this.held = held;
    for (const request of [...this.waiting]) {
      if (held(request.url)) continue;
      this.waiting.delete(request);
      request.go();
    }
  }

  releaseAll(): void {
    this.hold(() => false);
  }
}

interface LoadingState {
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

let browser: Browser;
let signedIn: { page: Page; gate: RequestGate };
let signedOut: { page: Page; gate: RequestGate };
const ids = { person: 0, segment: 0, html: 0, richText: 0, dragDrop: 0, broadcast: 0, flow: 0, domain: 0, import: 0, member: 0 };
let shareToken = '';
let mailId = 0;

async function must(method: string, path: string, body: unknown, cookie: string) {
  const answer = await api(method, path, body, cookie);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

/** A person, a segment, an email in each editor, a broadcast, a flow, a domain and an import: every page has something to load. */
async function createData(cookie: string, sender: string): Promise<void> {
  await must('POST', '/v1/fields', { items: [{ name: 'plan', title: 'Plan', type: 'string' }] }, cookie);
  ids.person = (await must('POST', '/v1/people/?source=manual', { email: uniqueEmail('ada'), firstName: 'Ada', plan: 'pro', tags: 'customer' }, cookie)).user.id;
  ids.segment = (await must('POST', '/v1/segments/', { name: 'Customers', conditions: [{ type: 'tag', operator: 'has', tag: 'customer' }] }, cookie)).segment.id;
  const html = '<p>Hello</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';
  const email = async (type: string) =>
    (await must('POST', '/v1/emails', { name: `News (${type})`, subject: 'News', fromEmail: sender, html, editor: { type, state: null, html } }, cookie)).email.id as number;
  ids.html = await email('html');
  ids.richText = await email('richtext');
  ids.dragDrop = await email('dragdrop');
  ids.broadcast = (await must('POST', '/v1/broadcasts', { name: 'November news', emailId: ids.html }, cookie)).item.id;
  ids.flow = (await must('POST', '/v1/integrations', { name: 'Welcome' }, cookie)).integration.id;
  const step = async (operationKey: string, inputFields: unknown, y: number) =>
    (await must('POST', '/v1/steps/', { flowId: ids.flow, operationKey, inputFields, coordinates: { x: 0, y } }, cookie)).step.id as number;
  const entered = await step('/entered-segment', { properties: { segment: { properties: { id: { value: ids.segment } } } } }, 0);
  const send = await step('/send', { properties: { email: { properties: { id: { value: ids.html } } } } }, 170);
  await must('POST', '/v1/links/', { source: entered, target: send }, cookie);
  shareToken = (await must('GET', `/v1/integrations/${ids.flow}/share-token`, undefined, cookie)).shareToken;
  mailId = (await must('GET', '/v1/dev/mailbox', undefined, cookie)).messages[0].id;
  ids.domain = (await must('POST', '/v1/settings/email/domains', { domain: 'loading-shop.com' }, cookie)).domain.id;
  ids.member = (await must('GET', '/v1/accounts', undefined, cookie)).teamMember.id;
  const upload = await must('POST', '/v1/imports/upload-url', {}, cookie);
  const target = new URL(upload.url as string);
  const put = await fetch(`${baseUrl()}${target.pathname}${target.search}`, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv', 'x-forwarded-for': visitorAddress() },
    body: `Email,First\n${uniqueEmail('grace')},Grace\n`,
  });
  expect(put.status).toBeLessThan(300);
  ids.import = (await must('POST', '/v1/imports', { peopleFileKey: upload.key, numPeople: 1, fieldMapping: [{ column: 'Email', field: 'email' }, { column: 'First', field: 'firstName' }] }, cookie)).id;
}

beforeAll(async () => {
  browser = await launchBrowser();
  const owner = await verifiedMarketer(browser);
  await createData(owner.cookie, owner.sender);
  const inPage = (await newPage(browser)).page;
  await logIn(inPage, owner.email, owner.password);
  signedIn = { page: inPage, gate: await RequestGate.on(inPage) };
  const outPage = (await newPage(browser)).page;
  signedOut = { page: outPage, gate: await RequestGate.on(outPage) };
  // The page signed in on lands on the dashboard, checked in the background: done before the states begin.
  await flushAccessibility();
});
afterAll(() => browser.close());

/** Pick an option of a segmented control (its radio is visually hidden under the label). */
const choose = (page: Page, name: string) => page.getByRole('radio', { name }).evaluate((radio: HTMLInputElement) => radio.click());

// Every route of apps/web/src/app/routes.tsx (aliases once), plus the loading states that come after the first.
const states: LoadingState[] = [
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
  { name: 'a new import', path: () => '/people/imports/new/upload', held: holdAccount, loader: 'Loading your account' },
  { name: 'emails', path: () => '/emails', loader: 'Loading emails' },
  { name: 'a new email', path: () => '/emails?new=1', held: holdPath(/^\/v1\/emails\/templates/), loader: 'Loading templates' },
  { name: 'an email', path: () => `/emails/${ids.html}`, loader: 'Loading email' },
  { name: 'the HTML editor', path: () => `/emails/${ids.html}`, held: isEditorCode, loader: 'Loading the editor', screenshot: 'loading-html-editor' },
  { name: 'the rich-text editor', path: () => `/emails/${ids.richText}`, held: isEditorCode, loader: 'Loading the editor' },
  { name: 'the drag-and-drop editor', path: () => `/emails/${ids.dragDrop}`, held: isEditorCode, loader: 'Loading the editor' },
  {
    name: "an email's figures",
    path: () => `/emails/${ids.html}`,
    held: holdPath(/^\/v1\/emails\/stats$/),
    after: { ready: (page) => page.getByRole('radio', { name: 'Performance' }).waitFor({ state: 'attached' }), act: (page) => choose(page, 'Performance') },
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
  { name: "a flow's conversions", path: () => `/metrics?flow=${ids.flow}`, held: holdPath(/^\/v1\/integrations\/\d+\/conversions$/), loader: 'Loading conversions' },
  { name: 'apps', path: () => '/apps', loader: 'Loading apps' },
  { name: 'billing', path: () => '/settings/billing', loader: 'Loading plan and billing' },
  { name: 'account', path: () => '/settings/account', held: holdAccount, loader: 'Loading your account' },
  { name: 'profile', path: () => '/settings/profile', held: holdAccount, loader: 'Loading your account' },
  { name: 'team', path: () => '/settings/team', loader: 'Loading team members' },
  { name: 'a team member', path: () => `/settings/team?team-member=${ids.member}`, loader: 'Loading team member' },
  { name: 'accounts', path: () => '/settings/accounts', loader: 'Loading accounts' },
  { name: 'site tracking', path: () => '/settings/site-tracking', loader: 'Loading site tracking' },
  { name: 'tracked forms', path: () => '/settings/site-tracking/forms', loader: 'Loading forms', screenshot: 'loading-tracked-forms' },
  { name: 'a tracked form', path: () => '/settings/site-tracking/forms/edit?hash=none', loader: 'Loading form' },
  { name: 'sender addresses', path: () => '/settings/email/addresses', loader: 'Loading sender addresses' },
  { name: 'sender domains', path: () => '/settings/email/domains', loader: 'Loading domains' },
  { name: 'a sender domain', path: () => `/settings/email/domains/${ids.domain}`, loader: 'Loading domain' },
  { name: 'categories', path: () => '/settings/communication-categories', loader: 'Loading categories' },
  { name: 'suppressions', path: () => '/settings/email/suppressions', loader: 'Loading the suppression list' },
  { name: 'email fonts', path: () => '/settings/email/fonts', held: holdAccount, loader: 'Loading your account' },
  { name: 'email settings', path: () => '/settings/email/general', loader: 'Loading quiet hours' },
  { name: 'custom fields', path: () => '/settings/person-fields', loader: 'Loading fields' },
  { name: 'tags', path: () => '/settings/tags', loader: 'Loading tags' },
  { name: 'a shared flow', path: () => `/flows/${ids.flow}?flow-read-auth=${shareToken}`, isSignedOut: true, loader: 'Loading the flow' },
  { name: 'registration', path: () => '/register', isSignedOut: true, held: holdAll, loader: 'Loading your account' },
  { name: 'subscription preferences', path: () => '/public/subscription-preferences?token=held', isSignedOut: true, held: holdAll, loader: 'Loading your preferences' },
  { name: 'unsubscribe', path: () => '/public/unsubscribe?token=held', isSignedOut: true, held: holdAll, loader: 'Unsubscribing you' },
  { name: 'sender verification', path: () => '/public/verify-sender?token=held', isSignedOut: true, held: holdAll, loader: 'Verifying your address' },
  { name: 'an invitation', path: () => '/public/accept-invite?token=held', isSignedOut: true, held: holdAll, loader: 'Loading your invitation' },
  { name: 'a marketplace registration', path: () => '/public/register/appsumo', isSignedOut: true, held: holdAll, loader: 'Loading' },
  { name: 'the development mailbox', path: () => '/dev/mailbox', isSignedOut: true, held: holdAll, loader: 'Loading' },
  { name: "the development mailbox's mail", path: () => '/dev/mailbox', isSignedOut: true, held: holdPath(/^\/v1\/dev\/mailbox$/), loader: 'Loading mail' },
  { name: 'a message in the development mailbox', path: () => `/dev/mailbox?id=${mailId}`, isSignedOut: true, held: holdPath(/^\/v1\/dev\/mailbox\/\d+$/), loader: 'Loading message' },
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

/** What loading indicators the page shows, for a failure message: each status's name, and loaders that are not one. */
function visibleLoaders(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('[role="status"], [aria-busy="true"], .mantine-Loader-root, .mantine-Skeleton-root'))
      .filter((node) => node.checkVisibility())
      .map((node) => `${node.tagName.toLowerCase()} role=${node.getAttribute('role') ?? ''} name=${node.getAttribute('aria-label') ?? (node as HTMLElement).innerText.slice(0, 40)}`),
  );
}

describe('loading states: axe finds no serious or critical violation while a page loads', () => {
  it.each(states)('on $name', async (state) => {
    const { page, gate } = state.isSignedOut ? signedOut : signedIn;
    const held = state.held ?? holdPageData;
    try {
      if (state.after) {
        gate.releaseAll();
        await page.goto(state.path());
        await state.after.ready(page);
        gate.hold(held);
        await state.after.act(page);
      } else {
        gate.hold(held);
        await page.goto(state.path());
      }
      const loader = typeof state.loader === 'string' ? page.getByRole('status', { name: state.loader, exact: true }) : state.loader(page);
      await loader.first().waitFor({ timeout: 10_000 }).catch(async (error: unknown) => {
        throw new Error(`no loader ${String(state.loader)} on ${page.url()}; loaders shown: ${JSON.stringify(await visibleLoaders(page))}\n${String(error)}`);
      });
      await checkAccessibilityNow(page);
      // The loader was still there when axe finished: it checked the loading state, not the page loaded.
      expect(await loader.first().isVisible()).toBe(true);
      if (state.screenshot) await screenshot(page, state.screenshot);
    } finally {
      gate.releaseAll();
    }
  });
});
