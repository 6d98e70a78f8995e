import { MantineProvider } from '@mantine/core';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { theme } from '../app/theme.ts';

/** jsdom has no matchMedia: every query answers "no" (a wide screen). */
function stubMatchMedia() {
  if (typeof window.matchMedia === 'function') return;
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

/** Renders a component inside the app's theme and a router at `url`; the router shows where it went. */
export function renderAt(url: string, ui: ReactNode) {
  stubMatchMedia();
  const router = createMemoryRouter(
    [{ path: '*', element: <MantineProvider theme={theme}>{ui}</MantineProvider> }],
    { initialEntries: [url] },
  );
  const result = render(<RouterProvider router={router} />);
  return { ...result, router, search: () => new URLSearchParams(router.state.location.search) };
}
