// @vitest-environment jsdom
import { Burger } from '@mantine/core';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../test/render.tsx';

afterEach(() => {
  cleanup();
  vi.doUnmock('./shell-popups.tsx');
});

/**
 * The narrow-screen menu with its popups held back until `arrive()`: a fresh copy of the loader (its module keeps the
 * popups once loaded) whose import of the popups waits for the gate.
 */
async function renderHeldBack() {
  vi.resetModules();
  let arrive = () => undefined as void;
  const gate = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  vi.doMock('./shell-popups.tsx', async (importOriginal) => {
    await gate;
    return importOriginal();
  });
  const { DeferredMenu } = await import('./deferred.tsx');
  renderAt(
    '/dashboard',
    <DeferredMenu
      target={<Burger size="sm" aria-label="Open navigation" />}
      menu={(popups, target, control) => <popups.NarrowMenu target={target} {...control} />}
    />,
  );
  const plain = screen.getByRole('button', { name: 'Open navigation' });
  // Still the plain button: the Menu's trigger says it has a popup.
  expect(plain.getAttribute('aria-haspopup')).toBeNull();
  return {
    plain,
    /** Lets the popups load and waits for the Menu's trigger, a new button. */
    async arrive() {
      arrive();
      await waitFor(() => expect(screen.getByRole('button', { name: 'Open navigation' })).not.toBe(plain), {
        timeout: 10_000,
      });
      return screen.getByRole('button', { name: 'Open navigation' });
    },
  };
}

/** Whether the menu is open (its trigger says so), once the timers and renders of the last event have run. */
async function isMenuOpen() {
  await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
  return screen.getByRole('button', { name: 'Open navigation' }).getAttribute('aria-expanded') === 'true';
}

describe('a top bar menu whose Menu arrives after the first paint', () => {
  it('opens when the press reached the plain button and the release and its click the new one', async () => {
    const { plain, arrive } = await renderHeldBack();
    fireEvent.pointerDown(plain);
    const trigger = await arrive();
    // Opening on the press let this click toggle the menu shut again (a CI run of 2026-12-07).
    fireEvent.pointerUp(trigger);
    fireEvent.click(trigger);
    expect(await isMenuOpen()).toBe(true);
  });

  it('opens when the press reached the plain button and the click reached neither', async () => {
    const { plain, arrive } = await renderHeldBack();
    fireEvent.pointerDown(plain);
    const trigger = await arrive();
    // The press alone opens nothing; the browser sends the click to a parent.
    expect(await isMenuOpen()).toBe(false);
    fireEvent.pointerUp(trigger);
    fireEvent.click(trigger.parentElement ?? document.body);
    expect(await isMenuOpen()).toBe(true);
  });

  it('opens when the menu arrives between the press and its mouse event', async () => {
    const { plain, arrive } = await renderHeldBack();
    fireEvent.pointerDown(plain);
    const trigger = await arrive();
    // The plain button is out of the page, so the press's mousedown goes to its parent, still there: outside the
    // menu. A menu opened by the pointer event took this for a click outside and closed.
    fireEvent.mouseDown(trigger.parentElement ?? document.body);
    fireEvent.pointerUp(trigger);
    fireEvent.click(trigger.parentElement ?? document.body);
    expect(await isMenuOpen()).toBe(true);
  });

  it('opens on arrival after a click (or Enter) on the plain button, and closes on the next click', async () => {
    const { plain, arrive } = await renderHeldBack();
    fireEvent.click(plain);
    const trigger = await arrive();
    expect(await isMenuOpen()).toBe(true);
    fireEvent.click(trigger);
    expect(await isMenuOpen()).toBe(false);
  });
});

describe('loading the popups', () => {
  it('loads again after a failed load rather than keeping the failure for every menu', async () => {
    vi.resetModules();
    let isOffline = true;
    vi.doMock('./shell-popups.tsx', async (importOriginal) => {
      if (isOffline) throw new Error('Failed to fetch dynamically imported module');
      return importOriginal();
    });
    const { loadShellPopups } = await import('./shell-popups-loader.ts');
    await expect(loadShellPopups()).rejects.toThrow();
    isOffline = false;
    const popups = await loadShellPopups();
    expect(typeof popups.NarrowMenu).toBe('function');
  });
});
