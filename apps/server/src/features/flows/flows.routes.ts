import type { RouteDef } from '../../http/route.ts';

/** Flows, steps, links and the step catalogue (work-areas.md §3, §4, §7); scopes flows:read / flows:write. */
export const flowsRoutes: RouteDef[] = [];
