import type { RouteDef } from '../../http/route.ts';

/** Marketplace registration (issue 21): redeeming a code at /public/register/appsumo. */
export const marketplaceRoutes: RouteDef[] = [];
