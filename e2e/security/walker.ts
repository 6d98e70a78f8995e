import type { Browser, BrowserContext, Frame, Page, Request } from 'playwright-core';
import { baseUrl, logIn, visitorAddress } from '../support/browser.ts';
import { emailContentFrame, holdingFrame, passiveTypes, type FrameKind } from './email-frames.ts';
import { corpus, idFromMarkerUrl, isScriptMarker, markerHost } from './payloads.ts';
import type { Finding, Stall, VisitResult } from './walker-findings.ts';
import { installProbes, payloadDirectives, withoutCsp } from './walker-probes.ts';
import { withTimeout } from './with-timeout.ts';

export type { Finding, Stall, VisitResult } from './walker-findings.ts';

/** What a page shows while it loads: a loader, a visible skeleton, or something busy. */
const loaderSelector =
  '.mantine-Loader-root, .mantine-Skeleton-root[data-visible="true"], [aria-busy="true"]';

/**
 * A signed-in browser context that watches for payloads running, in every frame: hook calls (a binding present in
 * every frame, under the hook's name in three cases), dialogs, requests to the marker host, CSP violations and
 * page errors that name the hook or the marker.
 */
export class XssWalker {
  readonly findings: Finding[] = [];
  /** Marker-host loads of an email's own images and styles inside its sandboxed preview or the editor canvas. */
  readonly emailContentLoads: string[] = [];
  /** CSP violations of directives that payloads do not trip (listed in the output). */
  readonly otherViolations: string[] = [];
  readonly visits: VisitResult[] = [];
  /** States where the page stopped answering; the walk went on in a fresh page (see `answering`). */
  readonly stalls: Stall[] = [];
  readonly seen = new Set<number>();
  /**
   * What each frame below the page's own is (an email's sandboxed preview, the editor canvas, neither), looked up as
   * it is attached: a marker request is classified after the fact, when a drawer that was closed meanwhile has taken
   * its frame away.
   */
  private readonly frameKinds = new WeakMap<Frame, Promise<FrameKind>>();
  private state = 'sign-in';
  private stateSince = Date.now();
  /** Names the state the walk has stayed on for 20 s or more, every 20 s, so a walk stopped by the test's timeout says where. */
  private readonly watchdog = setInterval(() => {
    const seconds = Math.round((Date.now() - this.stateSince) / 1000);
    if (seconds >= 20)
      console.error(`xss walk: still on ${this.state} after ${seconds} s (at ${this.page.url()})`);
  }, 20_000).unref();
  /** XSS_ONLY (a pattern of states) walks only the matching pages, to look into one finding quickly. */
  private skipping = false;
  private pending: Promise<unknown>[] = [];

  private constructor(
    readonly context: BrowserContext,
    public page: Page,
  ) {}

  /**
   * Signs in. Unless `keepCsp`, the app's pages arrive without their Content-Security-Policy: the app must be safe
   * without it (the CSP is defence in depth), and without it a payload the CSP would have stopped runs and is caught
   * by the hook, the dialog or the marker request, with its id. (With the CSP on, Chromium also reports handlers and
   * `<base>` in markup parsed into inert documents, DOMParser and createHTMLDocument, which never run: such reports
   * name no rendering bug; `keepCsp` walks that way and lists them.)
   */
  static async open(browser: Browser, email: string, password: string, keepCsp = false): Promise<XssWalker> {
    const context = await browser.newContext({
      baseURL: baseUrl(),
      viewport: { width: 1440, height: 900 },
      timezoneId: 'Europe/Berlin',
      extraHTTPHeaders: { 'x-forwarded-for': visitorAddress() },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const walker = new XssWalker(context, page);
    await walker.watch();
    if (!keepCsp) await withoutCsp(context);
    await logIn(page, email, password);
    await page.waitForLoadState('load');
    return walker;
  }

  private record(kind: Finding['kind'], id: number | null, detail: string): void {
    this.findings.push({ kind, id, state: this.state, detail });
    if (process.env.XSS_TRACE) console.error(`finding on ${this.state}: ${kind} #${id} ${detail}`);
  }

  private async watch(): Promise<void> {
    for (const name of ['__heraldXss', '__heraldxss', '__HERALDXSS']) {
      await this.context.exposeBinding(name, ({ frame }, id: unknown) =>
        this.record('hook', Number(id), `${name}(${String(id)}) in ${frame.url().slice(0, 120)}`),
      );
    }
    await this.context.exposeBinding('__heraldCsp', (_source, json: string) => {
      const report = JSON.parse(json) as {
        directive: string;
        blocked: string;
        sample: string;
        source: string;
        line: number;
        document: string;
        element: string;
      };
      const id =
        idFromMarkerUrl(report.blocked) ??
        (/(?:heraldxss|alert)\((\d+)\)/i.exec(report.sample)?.[1]
          ? Number(/(?:heraldxss|alert)\((\d+)\)/i.exec(report.sample)![1])
          : null);
      const line = `${report.directive} blocked ${report.blocked || '(inline)'}${report.sample ? ` “${report.sample}”` : ''} in ${report.document.slice(0, 80)} at ${report.element}${report.source ? ` (${report.source}:${report.line})` : ''}`;
      // The app's libraries probe whether eval is allowed (a caught `new Function`): not a payload unless it names one.
      const isProbe = report.blocked === 'eval' && id === null;
      if (!isProbe && (payloadDirectives.test(report.directive) || report.blocked.includes(markerHost)))
        this.record('csp', id, line);
      else this.otherViolations.push(`${this.state}: ${line}`);
    });
    await this.context.addInitScript(installProbes);
    await this.context.route(/^https?:\/\/xss-marker\.invalid\//, async (route) => {
      this.pending.push(this.classify(route.request()));
      await route.abort('blockedbyclient');
    });
    this.attach(this.page);
  }

  /** The page's own listeners: dialogs and page errors that name the hook or the marker. */
  private attach(page: Page): void {
    page.on('frameattached', (frame) => {
      // Looked up once, for a frame that can hold an email: a frame inside it (the email's own) may ask for its
      // document before it has an address, and goes by what holds it (kindOf).
      if (frame.parentFrame() !== page.mainFrame()) return;
      const kind = emailContentFrame(page, frame);
      kind.catch(() => undefined);
      this.frameKinds.set(frame, kind);
    });
    page.on('dialog', (dialog) => {
      // The app's own leave guard (an unsaved editor) asks before unloading: not a payload.
      if (dialog.type() === 'beforeunload') return void dialog.accept().catch(() => undefined);
      this.record('dialog', Number(dialog.message()) || null, `${dialog.type()} “${dialog.message()}”`);
      void dialog.dismiss().catch(() => undefined);
    });
    page.on('pageerror', (error) => {
      if (/heraldxss|xss-marker|fetch is not defined|alert is not defined/i.test(error.message)) {
        const id = /\((\d+)\)|\/(\d+)/.exec(error.message);
        this.record('page error', id ? Number(id[1] ?? id[2]) : null, error.message.slice(0, 200));
      }
    });
  }

  /**
   * The call's result, or, when the page has not answered for 20 s, a fresh page at the same address. A renderer that
   * hangs stops every later call of the page, mouse moves and evaluations alike, which have no timeout of their own
   * (seen in CI on the flow drawer that shows an email's preview, before the sweep kept off previews). The stall is
   * noted with its state and call; the walk goes on (the test fails on a second one). A call that fails outright (its
   * page gone) is taken the same way; the callers catch the failures they expect.
   */
  private async answering<T>(call: string, work: Promise<T>, fallback: T): Promise<T> {
    const stalled = Symbol('stalled');
    const outcome = await withTimeout<T | typeof stalled>(work, 20_000, stalled);
    if (outcome !== stalled) return outcome;
    const url = this.page.url();
    this.stalls.push({ state: this.state, call, url });
    console.error(
      `xss walk: the page stopped answering on ${this.state} (${call} at ${url}); going on in a fresh page`,
    );
    const hung = this.page;
    this.page = await this.context.newPage();
    this.page.setDefaultTimeout(15_000);
    this.attach(this.page);
    void withTimeout(hung.close({ runBeforeUnload: false }), 10_000, undefined);
    await this.page.goto(url, { waitUntil: 'domcontentloaded' }).catch(() => undefined);
    return fallback;
  }

  /** What the frame that holds `frame` is, as looked up when it was attached (or now, for one attached earlier). */
  private kindOf(frame: Frame): Promise<FrameKind> {
    const holder = holdingFrame(frame.page(), frame);
    return this.frameKinds.get(holder) ?? emailContentFrame(frame.page(), holder);
  }

  /** A marker request is a finding unless it is an email's own image or style inside its sandboxed frame or the editor canvas. */
  private async classify(request: Request): Promise<void> {
    const url = request.url();
    const state = this.state;
    let frame: Frame | null = null;
    try {
      frame = request.frame();
    } catch {
      frame = null;
    }
    // An email's own markup may load from anywhere inside its sandboxed preview (nothing there can run: even a
    // script tag's file is only fetched by the preload scanner), and passive resources in the editor's canvas.
    const where = !isScriptMarker(url) && frame ? await this.kindOf(frame).catch(() => null) : null;
    if (
      where === 'sandboxed preview' ||
      (where === 'editor canvas' && passiveTypes.has(request.resourceType()))
    ) {
      this.emailContentLoads.push(`${state}: ${where} ${request.resourceType()} ${url}`);
      return;
    }
    this.findings.push({
      kind: 'marker request',
      id: idFromMarkerUrl(url),
      state,
      detail: `${request.resourceType()} ${url} from ${frame?.url().slice(0, 120) ?? '(no frame)'}`,
    });
    if (process.env.XSS_TRACE)
      console.error(`finding on ${state}: marker request ${request.resourceType()} ${url}`);
  }

  /** Opens a page, lets it settle, sweeps the mouse over it, runs the extra steps, and notes what it showed. */
  async visit(state: string, path: string, extra?: (page: Page) => Promise<void>): Promise<void> {
    this.state = state;
    this.stateSince = Date.now();
    this.skipping = process.env.XSS_ONLY !== undefined && !new RegExp(process.env.XSS_ONLY).test(state);
    if (this.skipping) return;
    try {
      // A navigation the app itself started (after sign-in, say) can abort the first attempt.
      await this.page
        .goto(path, { waitUntil: 'domcontentloaded' })
        .catch(() => this.page.goto(path, { waitUntil: 'domcontentloaded' }));
      await this.settle();
      if (extra) {
        await extra(this.page);
        await this.settle();
      }
      await this.sweep();
      await this.look(state);
    } catch (error) {
      throw new Error(`walking ${state} (${path}, now at ${this.page.url()}): ${String(error)}`);
    }
  }

  /** A state reached inside the current page (a drawer, a menu, a tab): settles, sweeps and notes it. */
  async within(state: string, action: (page: Page) => Promise<void>): Promise<void> {
    if (this.skipping) return;
    this.state = state;
    this.stateSince = Date.now();
    try {
      await action(this.page);
      await this.settle();
      await this.sweep();
      await this.look(state);
    } catch (error) {
      throw new Error(`walking ${state} (at ${this.page.url()}): ${String(error)}`);
    }
  }

  /** Until nothing loads (no loader, no skeleton, no pending request) for a moment, at most 6 s. */
  async settle(): Promise<void> {
    const begun = Date.now();
    await this.page.waitForLoadState('load').catch(() => undefined);
    // Asked in the page every 100 ms up to 6 s after the settle began: a page still loading then (or gone) is walked
    // as it is, and one that stopped answering is replaced (see `answering`).
    const timeout = begun + 6_000 - Date.now();
    if (timeout > 0) {
      const loaded = this.page.waitForFunction(
        (selector) => document.querySelector(selector) === null,
        loaderSelector,
        { timeout, polling: 100 },
      );
      await this.answering(
        'settle: a loader shown?',
        loaded.then(
          () => undefined,
          () => undefined,
        ),
        undefined,
      );
    }
    if (process.env.XSS_TRACE && Date.now() - begun > 2_000) {
      const busy = await this.page
        .evaluate(
          (selector) =>
            Array.from(document.querySelectorAll(selector))
              .map((el) => el.outerHTML.slice(0, 120))
              .join(' | '),
          loaderSelector,
        )
        .catch(() => '?');
      console.error(`settle took ${Date.now() - begun} ms on ${this.state}: ${busy}`);
    }
    // Handlers of broken images, focus and toggles fire within a few frames; give them time. Not a wait for work: a
    // payload that never runs sends no signal, so this is the window in which one would have run.
    await this.page.waitForTimeout(300);
  }

  /** Moves the pointer over a grid of the viewport (mouseover and pointer handlers) and scrolls to the end. */
  private async sweep(): Promise<void> {
    const begun = Date.now();
    const grid = [120, 450, 800].flatMap((y) => [100, 500, 900, 1300].map((x): [number, number] => [x, y]));
    // Not over a sandboxed preview (no script runs there, so no handler of the app is under it): in CI, a mouse move
    // over the send step's email preview (a frame in a process of its own) was never acknowledged, twice.
    const overPreview = await this.answering(
      'sweep: where the previews are',
      this.page
        .evaluate(
          (points) =>
            points.map(([x, y]) => {
              const element = document.elementFromPoint(x, y);
              return (
                element instanceof HTMLIFrameElement &&
                element.hasAttribute('sandbox') &&
                !/allow-scripts/.test(element.getAttribute('sandbox') ?? '')
              );
            }),
          grid,
        )
        .catch(() => grid.map(() => false)),
      grid.map(() => false),
    );
    for (const [i, [x, y]] of grid.entries())
      if (!overPreview[i])
        await this.answering(`sweep: mouse to ${x},${y}`, this.page.mouse.move(x, y), undefined);
    await this.answering(
      'sweep: scroll to the end',
      this.page.evaluate(() => window.scrollTo(0, document.body.scrollHeight)).catch(() => undefined),
      undefined,
    );
    // Not a wait for work: the window in which a hover or scroll handler of a payload would have run (none signals).
    await this.page.waitForTimeout(100);
    if (process.env.XSS_TRACE) console.error(`sweep took ${Date.now() - begun} ms on ${this.state}`);
  }

  /** The page's text in every frame: body text, form fields, titles and labels. */
  private async pageText(): Promise<string> {
    // A frame that never gets a document (a javascript: frame inside a sandboxed preview) never answers: 3 s each.
    const texts = await Promise.all(
      this.page.frames().map((frame) =>
        withTimeout(
          frame.evaluate(() => {
            const fields = Array.from(document.querySelectorAll('input, textarea')).map(
              (el) => (el as HTMLInputElement).value,
            );
            const attributes = Array.from(document.querySelectorAll('[title], [aria-label]')).map(
              (el) => `${el.getAttribute('title') ?? ''}\n${el.getAttribute('aria-label') ?? ''}`,
            );
            return `${document.body?.innerText ?? ''}\n${fields.join('\n')}\n${attributes.join('\n')}\n${document.title}`;
          }),
          3_000,
          '',
        ),
      ),
    );
    return texts.join('\n');
  }

  private countShown(text: string): number {
    let shown = 0;
    for (const payload of corpus) {
      if (text.includes(payload.text)) {
        shown++;
        this.seen.add(payload.id);
      }
    }
    return shown;
  }

  /** Counts the payloads the page shows as text (every frame, text and form fields). */
  private async look(state: string): Promise<void> {
    let text = await this.pageText();
    let shown = this.countShown(text);
    // A page still loading after the settle's 6 s (the CI's two lanes share two cores) shows nothing yet: one more
    // look once its loaders are gone, up to 20 s more, before it counts as a page that showed no payload.
    if (shown === 0) {
      await this.page
        .waitForFunction((selector) => document.querySelector(selector) === null, loaderSelector, {
          timeout: 20_000,
          polling: 200,
        })
        .catch(() => undefined);
      text = await this.pageText();
      shown = this.countShown(text);
    }
    this.visits.push({
      state,
      shown,
      ...(shown === 0 ? { sample: text.replace(/\s+/g, ' ').trim().slice(0, 300) } : {}),
    });
    if (process.env.XSS_TRACE)
      console.error(
        `${new Date().toISOString().slice(11, 23)} ${state}: ${shown} shown, ${this.findings.length} findings`,
      );
  }

  /** Waits for the classification of every marker request seen so far. */
  async drain(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
  }

  async close(): Promise<void> {
    clearInterval(this.watchdog);
    await this.drain();
    await this.context.close();
  }
}
