// @vitest-environment jsdom
import { Burger } from '@mantine/core';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../test/render.tsx';
import { DeferredMenu } from './deferred.tsx';

afterEach(cleanup);

describe('a top bar menu whose Menu arrives after the first paint', () => {
  it('opens when the press reached the plain button and the release the Menu’s new one', async () => {
    renderAt(
      '/dashboard',
      <DeferredMenu
        target={<Burger size="sm" aria-label="Open navigation" />}
        menu={(popups, target, isOpenAtStart) => (
          <popups.NarrowMenu target={target} isOpenAtStart={isOpenAtStart} />
        )}
      />,
    );
    const plain = screen.getByRole('button', { name: 'Open navigation' });
    // Still the plain button: the Menu's trigger says it has a popup.
    expect(plain.getAttribute('aria-haspopup')).toBeNull();
    fireEvent.pointerDown(plain);
    // The button is replaced when the Menu arrives, so the release and the click land elsewhere: only the press
    // reached the plain button, and it is enough.
    expect(await screen.findByRole('menuitem', { name: 'Broadcasts' }, { timeout: 10_000 })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Open navigation' })).not.toBe(plain);
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
    vi.doUnmock('./shell-popups.tsx');
  });
});
