import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { inject } from 'vitest';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { axeCore, axeOptions } from './axe-rules.ts';

type AxeResults = Awaited<ReturnType<AxeBuilder['analyze']>>;
type AxeViolation = AxeResults['violations'][number];

/** The impacts that fail a journey; minor and moderate findings are left to review. */
const failingImpacts: ReadonlySet<string> = new Set(['serious', 'critical']);
/**
 * A page counts as settled once none of its requests is pending, nothing animates or shows a loader,
 * and its DOM has not changed for this long.
 */
const quietMs = 200;
const pollMs = 50;
/** Requests a page waits for before it counts as settled (not event streams or downloads of media). */
const awaitedResources: ReadonlySet<string> = new Set(['document', 'script', 'stylesheet', 'fetch', 'xhr']);
/** A page that never settles (a spinner that keeps spinning, a live count) is checked after this long anyway. */
const settleLimitMs = 5_000;
const targetsShown = 3;
/** axe-core's source, from the copy @axe-core/playwright uses. */
const axeSource = axeCore.source;
/** Given to AxeBuilder instead of axe's source, which `analyze` has put into every frame that lacked it. */
const axeAlreadyLoaded = 'void 0; // axe-core is already in this document';

export interface AccessibilityViolation {
  rule: string;
  impact: string;
  /** The state the page was in: its path and the names of its query parameters (`/settings/team?team-member`). */
  state: string;
  help: string;
  /** A selector for each element that fails. */
  targets: string[];
  /** axe's explanation for the first element (a contrast ratio, a missing name). */
  summary: string;
}

interface Run {
  state: string;
  violations: AccessibilityViolation[];
  /** The DOM changed or something animated while axe ran: the result may mix two moments (a dialog half faded in). */
  wasDisturbed: boolean;
}

/** The automatic checks' findings since the last `takeViolations`. */
let recorded: AccessibilityViolation[] = [];
/** Errors of automatic checks other than interruptions (axe failing to run): a check that cannot run fails. */
let errors: unknown[] = [];
const audits = new Map<Page, PageAudit>();

/**
 * A page state is its path plus the names (not values) of its query parameters, so that a dialog opened
 * by URL (`?team-member=new`, `?edit=1`) is checked as its own state while search terms do not multiply runs.
 */
export function pageState(url: string): string {
  const parsed = new URL(url);
  const names = [...new Set(parsed.searchParams.keys())].sort();
  return names.length === 0 ? parsed.pathname : `${parsed.pathname}?${names.join('&')}`;
}

/**
 * The run's record of the states checked so far, across its journey files: one empty file per state and screen width
 * in a directory global-setup.ts makes. A state another journey of the run already checked at that width is not
 * checked again automatically (56% of the automatic runs were such repeats, 115 of 217 s of axe in a run); the
 * explicit checks (`checkAccessibility`, `checkAccessibilityNow`) always run.
 */
function runRecord(state: string, width: number): string {
  const name = crypto.createHash('sha1').update(`${state}@${width}`).digest('hex');
  return path.join(inject('checkedStatesDir'), name);
}

function isAppPage(url: string): boolean {
  if (!url.startsWith('http')) return false;
  const { pathname } = new URL(url);
  return !pathname.startsWith('/v1/') && !pathname.startsWith('/files/');
}

/** Navigations and closed pages throw from inside a run; those runs are retried or dropped, never fatal. */
function isInterruption(error: unknown, page: Page): boolean {
  if (page.isClosed()) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /context was destroyed|navigat|Target (page, context or browser )?(has been )?closed|frame was detached|Cannot find context/i.test(
    message,
  );
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function toViolations(found: AxeViolation[], state: string): AccessibilityViolation[] {
  return found
    .filter((violation) => failingImpacts.has(violation.impact ?? ''))
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? '',
      state,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.flat().join(' >>> ')),
      summary: (violation.nodes[0]?.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
    }));
}

/** The elements that fail the same rule in both runs. */
function confirmedIn(
  first: AccessibilityViolation[],
  second: AccessibilityViolation[],
): AccessibilityViolation[] {
  return second.flatMap((violation) => {
    const earlier = first.find((candidate) => candidate.rule === violation.rule);
    const targets = violation.targets.filter((target) => earlier?.targets.includes(target));
    return targets.length > 0 ? [{ ...violation, targets }] : [];
  });
}

/** One readable block per violation, for the failure message. */
export function describeViolations(violations: AccessibilityViolation[]): string {
  const lines = violations.map((v) => {
    const more = v.targets.length > targetsShown ? ` and ${v.targets.length - targetsShown} more` : '';
    return `- ${v.rule} (${v.impact}) on ${v.state}: ${v.help}\n    at ${v.targets.slice(0, targetsShown).join(' | ')}${more}\n    ${v.summary}`;
  });
  return `${violations.length} serious or critical accessibility violation(s) (axe):\n${lines.join('\n')}`;
}

/** Checks each state of one page once the page has settled on it; runs are serialised (axe allows one at a time). */
class PageAudit {
  private readonly checked = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Bumped by every navigation of the main frame, so work for a state the page has left stops early, and by
   * an explicit check, which supersedes the automatic one pending.
   */
  private navigation = 0;
  private readonly pendingRequests = new Set<Request>();

  constructor(private readonly page: Page) {
    // framenavigated fires for history.pushState/replaceState too (same-document navigations).
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.onNavigated();
    });
    page.on('request', (request) => {
      if (awaitedResources.has(request.resourceType())) this.pendingRequests.add(request);
    });
    page.on('requestfinished', (request) => this.pendingRequests.delete(request));
    page.on('requestfailed', (request) => this.pendingRequests.delete(request));
    page.on('close', () => audits.delete(page));
  }

  /** Checked on this page, or at this width by any journey of the run (runRecord). */
  private isChecked(state: string): boolean {
    return this.checked.has(state) || fs.existsSync(runRecord(state, this.width()));
  }

  private markChecked(state: string): void {
    this.checked.add(state);
    fs.writeFileSync(runRecord(state, this.width()), '');
  }

  private width(): number {
    return this.page.viewportSize()?.width ?? 0;
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private onNavigated(): void {
    const navigation = ++this.navigation;
    const url = this.page.url();
    if (!isAppPage(url) || this.isChecked(pageState(url))) return;
    // Background work: interruptions end it quietly; any other error fails the journey at its end.
    void this.enqueue(() => this.checkState(navigation)).catch((error: unknown) => errors.push(error));
  }

  /** Waits until the page is quiet; false when it navigated away or closed meanwhile. */
  private async settle(navigation: number): Promise<boolean> {
    const deadline = Date.now() + settleLimitMs;
    try {
      await this.page.waitForLoadState('load');
      for (;;) {
        if (navigation !== this.navigation || this.page.isClosed()) return false;
        const quietFor = this.pendingRequests.size > 0 ? 0 : await this.page.evaluate(measureQuiet);
        if (navigation !== this.navigation) return false;
        if (quietFor >= quietMs || Date.now() > deadline) return true;
        await delay(pollMs);
      }
    } catch (error) {
      if (isInterruption(error, this.page)) return false;
      throw error;
    }
  }

  /** Runs axe on the page as it is; null when a navigation or a close interrupted the run. */
  private async analyze(navigation: number): Promise<Run | null> {
    const state = pageState(this.page.url());
    const startedAt = Date.now();
    try {
      // Legacy mode runs axe inside the page instead of opening a blank page in the journey's own context
      // for every run (2.5 times faster, and nothing races the journey for its context); Herald has no
      // cross-origin frames, which are all that legacy mode leaves out. axe's source goes only into the frames
      // that lack it, with no time limit: given none, the builder evaluates all 580 kB twice in the page and once
      // in every frame at every run, and drops a frame that takes over a second (on a busy machine, the page).
      const results = await this.runAxe();
      const quietFor = await this.page.evaluate(measureQuiet);
      // A client-side navigation during the run mixes two states: the new state's own check covers it.
      if (navigation !== this.navigation) return null;
      return {
        state,
        violations: toViolations(results.violations, state),
        wasDisturbed: quietFor < Date.now() - startedAt,
      };
    } catch (error) {
      if (isInterruption(error, this.page)) return null;
      throw error;
    }
  }

  /**
   * Puts axe into the frames that lack it and runs it. A frame redrawn between the two (an email preview whose
   * document is replaced) comes back without axe, and the run fails reading axe's functions there: that frame's
   * new document gets axe and the run is made again, up to three times.
   */
  private async runAxe(): Promise<Awaited<ReturnType<AxeBuilder['analyze']>>> {
    for (let attempt = 1; ; attempt++) {
      for (const frame of this.page.frames()) {
        const inject = async () => {
          if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluate(axeSource);
        };
        // A frame other than the page's that goes away meanwhile (a preview redrawn) is left out, as the builder does.
        if (frame === this.page.mainFrame()) await inject();
        else await inject().catch(() => undefined);
      }
      try {
        return await new AxeBuilder({ page: this.page, axeSource: axeAlreadyLoaded })
          .setLegacyMode()
          .options(axeOptions)
          .analyze();
      } catch (error) {
        const lostAxe =
          error instanceof Error &&
          /Cannot read properties of undefined \(reading '(run|runPartial|finishRun|configure)'\)/.test(
            error.message,
          );
        if (!lostAxe || attempt >= 3) throw error;
      }
    }
  }

  /**
   * Settles and runs axe; a run the journey disturbed (it typed, a dialog closed) is run again, and then
   * only what both runs found counts, so a half-faded dialog is not taken for a contrast failure.
   */
  private async audit(navigation: number): Promise<Run | null> {
    let previous: Run | null = null;
    for (;;) {
      if (!(await this.settle(navigation))) return null;
      const run = await this.analyze(navigation);
      if (!run) return null;
      if (!run.wasDisturbed) return run;
      if (previous) return { ...run, violations: confirmedIn(previous.violations, run.violations) };
      previous = run;
    }
  }

  private async checkState(navigation: number): Promise<void> {
    if (this.page.isClosed() || !isAppPage(this.page.url()) || this.isChecked(pageState(this.page.url())))
      return;
    const run = await this.audit(navigation);
    if (!run) return;
    this.markChecked(run.state);
    recorded.push(...run.violations);
  }

  /** Finishes the run under way and checks the current state if no run has yet (the state a journey ends on). */
  flush(): Promise<void> {
    return this.enqueue(() => this.checkState(this.navigation));
  }

  /** Checks the page as it is now (a dialog open, say); a run a navigation interrupts is run again on the new page. */
  checkNow(): Promise<AccessibilityViolation[]> {
    const navigation = ++this.navigation;
    return this.enqueue(async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        if (this.page.isClosed()) throw new Error('checkAccessibility: the page is closed');
        const run = await this.audit(attempt === 0 ? navigation : this.navigation);
        if (run) {
          this.markChecked(run.state);
          return run.violations;
        }
      }
      throw new Error(`checkAccessibility: the page kept navigating (${this.page.url()})`);
    });
  }

  /**
   * Checks the page as it is now, without waiting for it to settle: a loading state the journey holds on screen
   * (its requests held back), which the settling checks never see. The state counts as checked.
   */
  checkUnsettled(): Promise<AccessibilityViolation[]> {
    const navigation = ++this.navigation;
    return this.enqueue(async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        if (this.page.isClosed()) throw new Error('checkAccessibilityNow: the page is closed');
        const run = await this.analyze(attempt === 0 ? navigation : this.navigation);
        if (run) {
          this.markChecked(run.state);
          return run.violations;
        }
      }
      throw new Error(`checkAccessibilityNow: the page kept navigating (${this.page.url()})`);
    });
  }
}

/** Runs in the page: how long the DOM has been quiet, 0 while something animates or a loader shows. */
function measureQuiet(): number {
  const quiet = (window as unknown as { __heraldQuiet?: { lastChange: number } }).__heraldQuiet;
  const isAnimating = document
    .getAnimations()
    .some(
      (animation) =>
        animation.playState === 'running' && animation.effect?.getComputedTiming().iterations !== Infinity,
    );
  const isLoading = document.querySelector('.mantine-Loader-root') !== null;
  if (isAnimating || isLoading || !quiet) return 0;
  return performance.now() - quiet.lastChange;
}

/**
 * Runs in every document of the context before its own scripts: notes the time of the last DOM change, and turns
 * CSS transitions and animations off, so axe never reads the colours of a menu or dialog half faded in (a
 * transition runs with no DOM change for the quiet timer to see).
 */
function watchDomChanges(): void {
  const still = document.createElement('style');
  still.textContent =
    '*, *::before, *::after { transition-duration: 0s !important; transition-delay: 0s !important; animation-duration: 0s !important; animation-delay: 0s !important; }';
  const addStill = () => (document.head ?? document.documentElement)?.appendChild(still);
  if (document.head) addStill();
  else document.addEventListener('DOMContentLoaded', addStill, { once: true });
  const quiet = { lastChange: performance.now() };
  Object.defineProperty(window, '__heraldQuiet', { value: quiet });
  new MutationObserver(() => {
    quiet.lastChange = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

/**
 * Checks every state the page reaches with axe once it has settled there; violations are recorded for the
 * shared setup file, which fails the journey. Closing the context first finishes the page's checks.
 */
export async function watchAccessibility(context: BrowserContext, page: Page): Promise<void> {
  await context.addInitScript(watchDomChanges);
  audits.set(page, new PageAudit(page));
  const close = context.close.bind(context);
  context.close = async (options) => {
    await flushAccessibility();
    return close(options);
  };
}

/** Runs axe on the page as it is now (after opening a dialog, say) and throws on serious or critical violations. */
export async function checkAccessibility(page: Page): Promise<void> {
  const audit = audits.get(page) ?? new PageAudit(page);
  audits.set(page, audit);
  const violations = await audit.checkNow();
  if (violations.length > 0) throw new Error(describeViolations(violations));
}

/**
 * Runs axe on the page as it is at once, loaders and all (checkAccessibility waits for them to go), and throws on
 * serious or critical violations: for a loading state held on screen (journeys/loading-states.journey.ts).
 */
export async function checkAccessibilityNow(page: Page): Promise<void> {
  const audit = audits.get(page) ?? new PageAudit(page);
  audits.set(page, audit);
  const violations = await audit.checkUnsettled();
  if (violations.length > 0) throw new Error(describeViolations(violations));
}

/** Lets every open page finish its checks. */
export async function flushAccessibility(): Promise<void> {
  await Promise.all([...audits.values()].map((audit) => audit.flush()));
}

/** The violations recorded since the last call; throws the first error an automatic check met. */
export function takeViolations(): AccessibilityViolation[] {
  const [error] = errors;
  const taken = recorded;
  recorded = [];
  errors = [];
  if (error) throw error;
  return taken;
}
