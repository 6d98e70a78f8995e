import type { Page } from 'playwright-core';

// Holding a page's requests back, so a loading state stays on screen while a journey checks it
// (journeys/loading-states.journey.ts).

/** Which of a page's requests are held: the API (/v1/…) and the email editors' code. */
export type Held = (url: URL) => boolean;

/** The session check and the account, which every signed-in page waits for before it draws its own loading state. */
const bootPaths: ReadonlySet<string> = new Set(['/v1/heartbeat/authenticated', '/v1/accounts']);
const isApi = (url: URL) => url.pathname.startsWith('/v1/');
/** Each email editor is a chunk of its own (email-page.tsx loads it lazily). */
export const isEditorCode = (url: URL) =>
  /\/assets\/(html|rich-text|drag-drop)-editor-[^/]*\.js$/.test(url.pathname);
export const holdAll: Held = (url) => isApi(url);
/** The page's own calls; the session and the account go through, so the app shell and the page draw. */
export const holdPageData: Held = (url) => isApi(url) && !bootPaths.has(url.pathname);
/** The account held: a page that needs no more than the account shows the app's own loader until it comes. */
export const holdAccount: Held = (url) => isApi(url) && url.pathname !== '/v1/heartbeat/authenticated';
export const holdPath =
  (pattern: RegExp): Held =>
  (url) =>
    pattern.test(url.pathname);

/**
 * Holds the requests `held` names until the journey lets them go (or the page leaves): a loading state stays on
 * screen for as long as its check takes, however busy the machine, where a fixed delay would race the check.
 */
export class RequestGate {
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
