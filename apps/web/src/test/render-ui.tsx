import { MantineProvider } from '@mantine/core';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { theme } from '../app/theme.ts';
import { testQueryClient } from './api.tsx';
import { renderAt } from './render.tsx';

/** Room for tests that click through dropdowns on a busy machine (Vitest's default is 5 s). */
export const uiTestTimeout = 20_000;

/** What jsdom lacks and Mantine's selects, popovers and scroll areas call: a ResizeObserver and scrollIntoView. */
function stubLayout() {
  if (typeof window.ResizeObserver !== 'function') {
    window.ResizeObserver = class {
      observe() {}
      unobserve() {}
      disconnect() {}
    };
  }
  if (typeof Element.prototype.scrollIntoView !== 'function')
    Element.prototype.scrollIntoView = () => undefined;
}

/**
 * renderAt for components with dropdowns and queries: the layout stubs, Mantine's test mode (no transitions, no
 * portals, so a dropdown is in place and visible once open), and `client` (an empty one unless given) around `ui`.
 */
export function renderUi(ui: ReactNode, client: QueryClient = testQueryClient(), url = '/') {
  stubLayout();
  const wrapped = (
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={client}>{ui}</QueryClientProvider>
    </MantineProvider>
  );
  return { ...renderAt(url, wrapped), client };
}

/** Opens the select named `select` and picks its option named `option`. */
export async function chooseOption(select: string, option: string) {
  await userEvent.click(screen.getByRole('textbox', { name: select }));
  await userEvent.click(await screen.findByRole('option', { name: option }));
}
