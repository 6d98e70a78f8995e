import { useIsMutating } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Outlet, useMatches } from 'react-router';

export const titleSuffix = ' · Herald';

export interface RouteHandle {
  title: string;
}

function isRouteHandle(handle: unknown): handle is RouteHandle {
  return typeof handle === 'object' && handle !== null && typeof (handle as RouteHandle).title === 'string';
}

/** Page title = route name + product suffix, from the deepest route that names one. */
function usePageTitle(): void {
  const matches = useMatches();
  const title = [...matches].reverse().find((match) => isRouteHandle(match.handle))?.handle as
    RouteHandle | undefined;
  useEffect(() => {
    document.title = title ? `${title.title}${titleSuffix}` : 'Herald';
  }, [title]);
}

/** Asks the browser to confirm leaving while saves are still pending. */
function useConfirmLeaveWhileSaving(): void {
  const pendingSaves = useIsMutating();
  useEffect(() => {
    if (pendingSaves === 0) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [pendingSaves]);
}

export function RootLayout() {
  usePageTitle();
  useConfirmLeaveWhileSaving();
  return <Outlet />;
}
