import {
  completeScopes,
  enforceScopeNeeds,
  ssoMessages,
  type SaveSsoBody,
  type SsoSettingsResponse,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { atRestKey, encryptAtRest } from '../../lib/sealed-tokens.ts';
import type { Services } from '../../services.ts';
import { discoverProvider } from './sso-client.ts';
import { providerOf, ssoRedirectUri } from './sso-sign-in.service.ts';
import {
  deleteSsoConnection,
  findDomainsOfOtherAccounts,
  findMainAccountOf,
  findSsoConnection,
  saveSsoConnection,
} from './sso.queries.ts';

// The account's single sign-on settings (account:write). Only a main account has them: sub-accounts are reached from
// the main account's sign-in.

async function refuseSubAccount(db: Database, session: Session) {
  if (session.id.startsWith('api-key:')) throw forbidden(ssoMessages.apiKeyRefused);
  const account = await findMainAccountOf(db, session.accountId);
  if (!account) throw notFound();
  if (account.parentAccountId !== null)
    throw badRequest('Single sign-on is set up on the main account, not on a sub-account.');
}

/** GET /v1/accounts/sso */
export async function getSsoSettings(
  services: Services,
  db: Database,
  session: Session,
): Promise<SsoSettingsResponse> {
  const row = await findSsoConnection(db, session.accountId);
  return {
    redirectUri: ssoRedirectUri(services),
    connection: row
      ? {
          issuer: row.issuer,
          clientId: row.clientId,
          hasClientSecret: true,
          domains: row.domains,
          defaultScopes: completeScopes(row.defaultScopes),
          requireSso: row.requireSso,
          updatedAt: row.updatedAt.toISOString(),
        }
      : null,
  };
}

/**
 * PUT /v1/accounts/sso: the provider's discovery document must answer for the issuer and client (a typo is a 400
 * now, not a failed sign-in later); a domain another account signs in with is a 409; nothing is written on a refusal.
 */
export async function saveSsoSettings(services: Services, db: Database, session: Session, body: SaveSsoBody) {
  await refuseSubAccount(db, session);
  const existing = await findSsoConnection(db, session.accountId);
  const issuer = body.issuer.replace(/\/+$/, '');
  let clientSecret: string;
  if (body.clientSecret !== undefined) clientSecret = body.clientSecret;
  else if (existing) clientSecret = providerOf(services, existing).clientSecret;
  else throw badRequest(ssoMessages.secretRequired);
  const taken = await findDomainsOfOtherAccounts(services.db, session.accountId, body.domains);
  if (taken.length > 0)
    throw conflict(`${ssoMessages.domainTaken} (${taken.join(', ')})`, 'sso-domain-taken');
  await discoverProvider(services, { issuer, clientId: body.clientId, clientSecret }, badRequest);
  await saveSsoConnection(
    db,
    {
      accountId: session.accountId,
      issuer,
      clientId: body.clientId,
      clientSecret: encryptAtRest(clientSecret, atRestKey(services.secret, 'sso')),
      defaultScopes: enforceScopeNeeds(completeScopes(body.defaultScopes)),
      requireSso: body.requireSso,
    },
    body.domains,
  ).catch((error: unknown) => {
    // Two accounts claiming one domain at the same moment: the unique index decides.
    if ((error as { code?: string }).code === '23505')
      throw conflict(ssoMessages.domainTaken, 'sso-domain-taken');
    throw error;
  });
  return getSsoSettings(services, db, session);
}

/** DELETE /v1/accounts/sso: password sign-in is back for everyone; members made by SSO stay members. */
export async function deleteSsoSettings(db: Database, session: Session) {
  if (session.id.startsWith('api-key:')) throw forbidden(ssoMessages.apiKeyRefused);
  if (!(await deleteSsoConnection(db, session.accountId))) throw notFound(ssoMessages.noConnection);
}
