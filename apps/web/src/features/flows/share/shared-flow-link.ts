import { useLocation } from 'react-router';

/** The query parameter of a read-only share link (docs/flows.md: /flows/{id}?flow-read-auth=…). */
export const shareLinkParam = 'flow-read-auth';

export type SharedFlowLink = { flowId: number; token: string };

/** The flow and token a location opens read-only, or null when it is not a share link. */
export function sharedFlowOf(location: { pathname: string; search: string }): SharedFlowLink | null {
  const match = /^\/flows\/(\d+)\/?$/.exec(location.pathname);
  const token = new URLSearchParams(location.search).get(shareLinkParam);
  if (!match || !token) return null;
  const flowId = Number(match[1]);
  return Number.isSafeInteger(flowId) && flowId > 0 ? { flowId, token } : null;
}

export function useSharedFlowLink(): SharedFlowLink | null {
  const location = useLocation();
  return sharedFlowOf(location);
}
