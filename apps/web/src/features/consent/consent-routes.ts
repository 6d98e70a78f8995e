import type { RouteObject } from 'react-router';

/** The double opt-in confirmation page (public, no session), loaded on first visit like every page. */
export const confirmSubscriptionRoute: RouteObject = {
  path: 'public/confirm-subscription',
  handle: { title: 'Confirm Subscription' },
  lazy: () =>
    import('./confirm-subscription-page.tsx').then((m) => ({ Component: m.ConfirmSubscriptionPage })),
};
