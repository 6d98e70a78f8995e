import type { BrowserContext } from 'playwright-core';
import { baseUrl } from '../support/browser.ts';

// What the XSS walker puts into the pages it walks (walker.ts).

/** CSP directives a payload trips (scripts, plugins, frames, base, forms); others are listed, not failed on. */
export const payloadDirectives =
  /^(script-src|object-src|frame-src|child-src|base-uri|form-action|default-src)/;

/**
 * Runs in every document of the context before its scripts: reports CSP violations to the test, and gives case-mangled
 * payloads (a field that lower- or upper-cases its text) something to call, so they are caught too.
 */
export function installProbes(): void {
  const w = window as unknown as Record<string, unknown>;
  w.FETCH = (url: unknown) => fetch(String(url));
  w.ALERT = (m: unknown) => (w.__heraldXss as (id: unknown) => void)(m);
  document.addEventListener('securitypolicyviolation', (event) => {
    const report = w.__heraldCsp as ((json: string) => void) | undefined;
    report?.(
      JSON.stringify({
        directive: event.effectiveDirective,
        blocked: event.blockedURI,
        sample: event.sample,
        source: event.sourceFile,
        line: event.lineNumber,
        document: location.href,
        element:
          event.target instanceof Element ? event.target.outerHTML.slice(0, 160) : String(event.target),
      }),
    );
  });
}

/**
 * Serves the app's pages without their Content-Security-Policy (the API, assets and files are left alone), so a
 * payload the CSP would have stopped runs and is caught (XssWalker.open).
 */
export async function withoutCsp(context: BrowserContext): Promise<void> {
  const origin = new URL(baseUrl()).origin;
  await context.route(
    (url) => url.origin === origin && !/^\/(v1|assets|files)\//.test(url.pathname),
    async (route) => {
      if (route.request().resourceType() !== 'document') return route.continue();
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers['content-security-policy'];
      await route.fulfill({ response, headers });
    },
  );
}
