import { flowApiMessages, hasScopes } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { forbidden, unauthorized } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { signToken, verifyToken } from '../../lib/tokens.ts';
import type { Services } from '../../services.ts';
import { flowOrThrow, type FlowReader } from './flow-lookup.ts';

/**
 * Read-only sharing (docs/flows.md): a share token is signed with the app's token
 * secret, as reset and invitation links are, and names the account and the flow. It opens that flow, its
 * emails, segments and attached resources for reading, to anyone holding it, for 30 days.
 */
const shareKind = 'flow-share';
const shareDays = 30;

/** GET /v1/integrations/{id}/share-token. */
export async function getShareToken(db: Database, services: Services, session: Session, id: number) {
  await flowOrThrow(db, session.accountId, id);
  return {
    shareToken: signToken(
      { kind: shareKind, a: session.accountId, f: id },
      services.secret,
      shareDays * 86_400,
    ),
  };
}

/** The account whose flow `id` the share token opens; a token of another flow, changed or expired is a 403. */
export function shareTokenAccount(services: Services, token: string, id: number): number {
  const payload = verifyToken(token, services.secret);
  if (!payload || payload.kind !== shareKind || payload.f !== id || typeof payload.a !== 'number')
    throw forbidden(flowApiMessages.shareInvalid);
  return payload.a;
}

/**
 * Run a read of flow `id` for the holder of its share token (`read-only-auth`), else for a signed-in member with
 * flows:read, in a transaction that sees only the flow's account. A token of another flow or expired is a 403.
 */
export async function readFlow<T>(
  context: { services: Services; session: Session | undefined; token: string | undefined },
  id: number,
  work: (reader: FlowReader) => Promise<T>,
): Promise<T> {
  const { services, session, token } = context;
  if (token !== undefined) {
    const accountId = shareTokenAccount(services, token, id);
    return withAccount(services.db, accountId, (db) => work({ db, accountId, readOnly: true }));
  }
  if (!session) throw unauthorized();
  if (!hasScopes(session, ['flows:read'])) throw forbidden('You need the flows:read permission to do this.');
  return withAccount(services.db, session.accountId, (db) =>
    work({ db, accountId: session.accountId, readOnly: false }),
  );
}

/**
 * Who may read the step catalogue (GET /v1/services): a signed-in member with flows:read, or the holder of any
 * valid share token, whose read-only canvas needs the catalogue to draw the steps (it holds no account's data).
 */
export function assertCatalogueReader(
  services: Services,
  session: Session | undefined,
  token: string | undefined,
): void {
  if (token !== undefined) {
    const payload = verifyToken(token, services.secret);
    if (!payload || payload.kind !== shareKind) throw forbidden(flowApiMessages.shareInvalid);
    return;
  }
  if (!session) throw unauthorized();
  if (!hasScopes(session, ['flows:read'])) throw forbidden('You need the flows:read permission to do this.');
}
