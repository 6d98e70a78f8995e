// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react';
import { modals } from '@mantine/modals';
import { afterEach, describe, expect, it } from 'vitest';
import { renderAt } from '../test/render.tsx';
import { holdModalEvents } from './modal-events.ts';
import AppModals from './modals.tsx';

afterEach(cleanup);

describe('confirm dialogs asked for before their host has loaded', () => {
  it('opens a dialog asked for before the provider mounted, once it mounts', async () => {
    holdModalEvents();
    // A page asks before the lazily loaded provider is there (a click right after the first paint).
    modals.openConfirmModal({
      title: 'Unsubscribe from all?',
      labels: { confirm: 'Unsubscribe from all', cancel: 'Cancel' },
    });
    renderAt('/', <AppModals />);
    expect(await screen.findByRole('dialog', { name: 'Unsubscribe from all?' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Unsubscribe from all' })).toBeTruthy();
  });

  it('without the hold, a dialog asked for before the provider mounted is lost (what the hold is for)', async () => {
    modals.openConfirmModal({ title: 'Lost dialog', labels: { confirm: 'Yes', cancel: 'No' } });
    renderAt('/', <AppModals />);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(screen.queryByRole('dialog', { name: 'Lost dialog' })).toBeNull();
  });
});
