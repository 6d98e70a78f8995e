import type { Frame, Page } from 'playwright-core';
import { withTimeout } from './with-timeout.ts';

/**
 * Resource types an email may load from the marker host inside its sandboxed preview or the editor canvas: its own
 * images, styles, media, and documents of its frames and objects (which the sandbox keeps from running script).
 */
export const passiveTypes: ReadonlySet<string> = new Set([
  'image',
  'stylesheet',
  'font',
  'media',
  'document',
]);

/**
 * Where a frame shows an email as its recipient would: inside the sandboxed preview (no scripts), or in the
 * drag-and-drop builder's canvas (same origin, scripts possible); null anywhere else.
 */
export type FrameKind = 'sandboxed preview' | 'editor canvas' | null;

/** The frame just below the page's own that holds `frame` (itself when it is one), or the page's own frame. */
export function holdingFrame(page: Page, frame: Frame): Frame {
  let current = frame;
  for (
    let parent = current.parentFrame();
    parent && parent !== page.mainFrame();
    parent = current.parentFrame()
  )
    current = parent;
  return current;
}

export async function emailContentFrame(page: Page, frame: Frame): Promise<FrameKind> {
  const current = holdingFrame(page, frame);
  if (current === page.mainFrame() || current.isDetached()) return null;
  const element = await withTimeout(current.frameElement(), 10_000, null);
  if (!element) return null;
  return withTimeout(
    element.evaluate((node) => {
      const el = node as Element;
      const sandbox = el.getAttribute('sandbox');
      if (sandbox !== null && !/allow-scripts/.test(sandbox)) return 'sandboxed preview' as const;
      return el.classList.contains('gjs-frame') || el.getAttribute('title') === 'Email canvas'
        ? ('editor canvas' as const)
        : null;
    }),
    10_000,
    null,
  );
}
