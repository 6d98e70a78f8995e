import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibilityNow, flushAccessibility } from '../support/accessibility.ts';
import { launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';
import { verifiedMarketer } from '../support/marketer.ts';
import { holdPageData, RequestGate } from '../support/request-gate.ts';
import { createData } from './loading-states-data.ts';
import { states } from './loading-states-pages.ts';

// Journeys check pages once they settle (support/accessibility.ts), when their loaders have gone. This one holds
// the API's answers back, so each page's loading state stays on screen, and checks that state with axe while a
// loader shows (docs/web-app.md, "Every journey runs axe on every page state it reaches").
// Which requests are held: support/request-gate.ts; the data every page loads: loading-states-data.ts; the states,
// one per route: loading-states-pages.ts.

let browser: Browser;
let signedIn: { page: Page; gate: RequestGate };
let signedOut: { page: Page; gate: RequestGate };

beforeAll(async () => {
  browser = await launchBrowser();
  const owner = await verifiedMarketer();
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

/** What loading indicators the page shows, for a failure message: each status's name, and loaders that are not one. */
function visibleLoaders(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(
      document.querySelectorAll(
        '[role="status"], [aria-busy="true"], .mantine-Loader-root, .mantine-Skeleton-root',
      ),
    )
      .filter((node) => node.checkVisibility())
      .map(
        (node) =>
          `${node.tagName.toLowerCase()} role=${node.getAttribute('role') ?? ''} name=${node.getAttribute('aria-label') ?? (node as HTMLElement).innerText.slice(0, 40)}`,
      ),
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
      const loader =
        typeof state.loader === 'string'
          ? page.getByRole('status', { name: state.loader, exact: true })
          : state.loader(page);
      await loader
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(async (error: unknown) => {
          throw new Error(
            `no loader ${String(state.loader)} on ${page.url()}; loaders shown: ${JSON.stringify(await visibleLoaders(page))}\n${String(error)}`,
          );
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
