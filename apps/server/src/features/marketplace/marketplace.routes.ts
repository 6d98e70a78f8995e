import { RedeemAnswer, RedeemBody, RedemptionList } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { redeemCode, redemptionsOf } from './marketplace.service.ts';

/** Marketplace registration (issue 21): redeeming a code at /public/register/appsumo. */
export const marketplaceRoutes: RouteDef[] = [
  // Public: a visitor registers with the code; a signed-in member needs billing:write (checked in the service).
  route({
    method: 'POST',
    url: '/v1/marketplace/redeem',
    auth: 'public',
    example: { code: 'DEAL-0000-EXAMPLE' },
    summary: 'Redeem a marketplace code: register a new account with it, or put it on the current account',
    body: RedeemBody,
    response: RedeemAnswer,
    handler: ({ services, session, body, request, reply }) =>
      redeemCode(services, session, body, request, reply),
  }),
  route({
    method: 'GET',
    url: '/v1/marketplace/redemptions',
    auth: 'session',
    scopes: ['billing:read'],
    summary: 'Marketplace codes redeemed onto the current account',
    response: RedemptionList,
    handler: ({ services, session }) => redemptionsOf(services, session),
  }),
];
