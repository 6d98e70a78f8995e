import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFigure } from '../../apps/server/test/figures.ts';
import { api, createUser, launchBrowser } from '../support/browser.ts';
import { corpus, fitting, pick } from './payloads.ts';
import { seedContent } from './seed-content.ts';
import { seedPeople } from './seed-people.ts';
import { Seeder } from './seed-support.ts';
import { XssWalker, type Finding } from './walker.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** Clicks a control when it is there (a page without it is still walked). */
async function clickIfThere(page: Page, selector: ReturnType<Page['locator']>): Promise<boolean> {
  if ((await selector.count()) === 0) return false;
  await selector
    .first()
    .click({ timeout: 5_000 })
    .catch(() => undefined);
  return true;
}

function describeFindings(findings: Finding[]): string {
  return findings
    .map(
      (f) =>
        `- ${f.kind} ${f.id === null ? '' : `payload #${f.id} `}on ${f.state}: ${f.detail}${f.id ? `\n    payload: ${corpus.find((p) => p.id === f.id)?.text ?? '?'}` : ''}`,
    )
    .join('\n');
}

describe('hostile input in the browser', () => {
  it('writes the corpus through every text field, opens every page that shows it, and nothing runs', async () => {
    const started = Date.now();
    const user = await createUser();
    const login = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
    const seeder = new Seeder(login.cookie!, user.accountId);
    const people = await seedPeople(seeder);
    const content = await seedContent(seeder, people);
    const seededIn = (Date.now() - started) / 1000;
    console.log(`xss: seeded ${corpus.length} payloads in ${seededIn.toFixed(1)} s:\n${seeder.summary()}`);

    // XSS_KEEP_CSP=1 walks with the app's CSP on and lists what it reports (see XssWalker.open).
    const keepCsp = process.env.XSS_KEEP_CSP === '1';
    const walker = await XssWalker.open(browser, user.email, user.password, keepCsp);
    const { emailIds, broadcastIds, flowIds } = content;

    // Work areas, their lists and detail pages.
    await walker.visit('dashboard', '/dashboard');
    await walker.visit('start', '/start');
    await walker.visit('people', '/people', async (page) => {
      for (let i = 0; i < 3; i++)
        if (await clickIfThere(page, page.getByRole('button', { name: 'Load more' }))) await walker.settle();
    });
    await walker.within('people: profile menu (accounts)', async (page) => {
      await page.locator('[aria-label$="Profile menu"]').first().click();
    });
    await walker.visit('people: search results', '/people', async (page) => {
      await page.getByLabel('Search people').fill('onerror');
      // Not a wait for work: longer than the search box's debounce (a timer), so the walk sees the results.
      await page.waitForTimeout(900);
    });
    for (const id of people.segmentIds.slice(0, 2)) {
      await walker.visit(`segment ${id}`, `/segments/${id}`);
      await walker.within(`segment ${id}: conditions drawer`, async (page) => {
        await clickIfThere(page, page.getByRole('button', { name: /^(Edit conditions|Conditions)$/ }));
      });
    }
    for (const id of people.heavyPersonIds) {
      await walker.visit(`person ${id}`, `/people/${id}`, async (page) => {
        await clickIfThere(page, page.getByRole('button', { name: 'Load more' }));
        await walker.settle();
      });
    }
    await walker.visit('imports', '/people/imports');
    for (const id of people.importIds) await walker.visit(`import ${id}`, `/people/imports/${id}`);
    await walker.visit('emails', '/emails');
    for (const [editor, id] of Object.entries(emailIds)) {
      await walker.visit(`email ${id} (${editor}): editor`, `/emails/${id}`);
      await walker.within(`email ${id} (${editor}): preview`, async (page) => {
        await page.getByText('Preview', { exact: true }).first().click();
      });
      await walker.within(`email ${id} (${editor}): performance`, async (page) => {
        await page.getByText('Performance', { exact: true }).first().click();
      });
    }
    await walker.visit('broadcasts', '/broadcasts');
    for (const id of broadcastIds.slice(0, 3)) await walker.visit(`broadcast ${id}`, `/broadcasts/${id}`);
    await walker.visit('flows', '/flows');
    for (const [index, id] of flowIds.slice(0, 6).entries()) {
      await walker.visit(`flow ${id}: canvas`, `/flows/${id}`, async (page) => {
        await clickIfThere(page, page.getByRole('button', { name: 'Fit View' }));
      });
      // Every step's drawer of the first flow (every kind of action), the trigger's drawer of the others.
      const count = index === 0 ? await walker.page.locator('.react-flow__node').count() : 1;
      for (let n = 0; n < count; n++) {
        await walker.within(`flow ${id}: step drawer ${n + 1}`, async (page) => {
          await page
            .getByRole('button', { name: 'Fit View' })
            .click()
            .catch(() => undefined);
          await page
            .locator('.react-flow__node')
            .nth(n)
            .click({ position: { x: 20, y: 12 }, timeout: 5_000 })
            .catch(() => undefined);
        });
        await clickIfThere(walker.page, walker.page.getByRole('button', { name: 'Close step' }));
      }
    }
    // A confirmation and a toast that name a flow: archive the last flow (one the walk does not open).
    const lastFlowName = pick(709).text;
    await walker.visit('flows: archive confirmation', '/flows', async (page) => {
      await page.getByRole('button', { name: `Actions for ${lastFlowName}`, exact: true }).click();
      await page.getByRole('menuitem', { name: /Archive/ }).click();
      await page.getByRole('dialog').waitFor();
    });
    await walker.within('flows: archived toast', async (page) => {
      await page.getByRole('dialog').getByRole('button', { name: 'Archive', exact: true }).click();
      await page.getByText(`“${lastFlowName}” archived.`).first().waitFor();
    });
    await walker.visit('metrics', '/metrics');
    await walker.visit('apps', '/apps');

    // Settings.
    for (const [state, path] of [
      ['settings: account', '/settings/account'],
      ['settings: profile', '/settings/profile'],
      ['settings: team', '/settings/team'],
      ['settings: accounts', '/settings/accounts'],
      ['settings: billing', '/billing'],
      ['settings: site tracking', '/settings/site-tracking'],
      ['settings: forms', '/settings/site-tracking/forms'],
      ['settings: sender addresses', '/settings/email/addresses'],
      ['settings: sender domains', '/settings/email/domains'],
      ['settings: categories', '/settings/communication-categories'],
      ['settings: suppressions', '/settings/email/suppressions'],
      ['settings: fonts', '/settings/email/fonts'],
      ['settings: email general', '/settings/email/general'],
      ['settings: custom fields', '/settings/person-fields'],
      ['settings: tags', '/settings/tags'],
    ] as const) {
      await walker.visit(state, path);
    }

    // Public pages that show account data: the preference centre, an invitation.
    await walker.visit(
      'public: preference centre',
      `/public/subscription-preferences?token=${encodeURIComponent(content.preferenceToken)}`,
    );
    if (content.invitationToken)
      await walker.visit(
        'public: invitation',
        `/public/accept-invite?token=${encodeURIComponent(content.invitationToken)}`,
      );

    await walker.close();
    const findings = walker.findings;
    const seconds = (Date.now() - started) / 1000;
    const pages = walker.visits.length;
    const csp = findings.filter((f) => f.kind === 'csp');
    const executions = findings.filter((f) => f.kind !== 'csp');
    const unseen = fitting(200).filter((p) => !walker.seen.has(p.id));
    console.log(
      [
        `xss: ${corpus.length} payloads x ${pages} pages in ${seconds.toFixed(1)} s (seeding ${seededIn.toFixed(1)} s); ${walker.seen.size} payloads shown as text somewhere`,
        `xss: executions ${executions.length}, ${keepCsp ? `CSP reports ${csp.length}` : `walked without the app's CSP (so nothing was left to it), CSP reports ${csp.length}`}, email-content loads in sandboxed frames ${walker.emailContentLoads.length}`,
        ...walker.visits.map((v) => `  ${v.state}: ${v.shown} payloads shown`),
        ...(walker.stalls.length
          ? [
              `pages that stopped answering (the walk went on in a fresh page):`,
              ...walker.stalls.map((s) => `  ${s.state}: ${s.call} at ${s.url}`),
            ]
          : []),
        ...(walker.otherViolations.length
          ? [
              `other CSP reports (not from payloads' directives):`,
              ...walker.otherViolations.slice(0, 20).map((v) => `  ${v}`),
            ]
          : []),
      ].join('\n'),
    );

    if (keepCsp && csp.length > 0)
      console.log(`CSP reports (listed, not failed on, with the CSP on):\n${describeFindings(csp)}`);
    expect(
      keepCsp ? executions : findings,
      `payloads ran:\n${describeFindings(keepCsp ? executions : findings)}`,
    ).toEqual([]);
    // The walk reached the data: every payload short enough for a name was shown somewhere, and each page showed some.
    expect(
      unseen.map((p) => p.id),
      'payloads no page showed',
    ).toEqual([]);
    // (A state whose page stopped answering is listed with the stalls above: its fresh page shows the page without it.)
    expect(
      walker.visits
        .filter(
          (v) =>
            v.shown === 0 &&
            !walker.stalls.some((s) => s.state === v.state) &&
            !/^(dashboard|start|metrics|settings: (billing|site tracking|sender addresses|sender domains))$/.test(
              v.state,
            ),
        )
        .map((v) => `${v.state} (it showed: ${v.sample ?? ''})`),
      'pages that showed no payload',
    ).toEqual([]);
    // One hung renderer is noted and walked past; a second one says the app (not the browser) stops answering.
    expect(
      walker.stalls.length,
      `pages that stopped answering: ${walker.stalls.map((s) => `${s.state} (${s.call})`).join('; ')}`,
    ).toBeLessThan(2);
    writeFigure('security', 10, 'xss', `security: ${corpus.length} payloads x ${pages} pages, 0 executions`);
  });
});
