import crypto from 'node:crypto';
import { addCodes, codeHashOf } from '../src/features/marketplace/marketplace-codes.service.ts';
import type { TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the marketplace code tests share: a server with a worker and an SMTP sink (team invitations), and the calls
 * that load a code and read a code's or an account's row. A test file calls useMarketplaceContext() once: its own
 * beforeAll builds the server and its afterAll closes it; `ctx` and `smtp`, read live by the importers, name the
 * current file's.
 */
export let ctx: TestContext;
export let smtp: SmtpSink;

export function useMarketplaceContext(): void {
  useSmtpContext({ MAIL_FROM: 'Herald <no-reply@herald.test>' }, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

/** A fresh code loaded as the operator would, granting `peopleUpperLimit`. */
export async function newCode(peopleUpperLimit = 5000): Promise<string> {
  const code = `DEAL-${crypto.randomBytes(6).toString('hex').toUpperCase()}`;
  await addCodes(ctx.services.db, [{ code, peopleUpperLimit }]);
  return code;
}

export function codeRow(code: string) {
  return ctx.services.db
    .selectFrom('marketplaceCodes')
    .selectAll()
    .where('codeHash', '=', codeHashOf(code))
    .executeTakeFirstOrThrow();
}

export function accountRow(accountId: number) {
  return ctx.services.db
    .selectFrom('accounts')
    .select(['status', 'planName', 'planPeopleUpperLimit', 'planProvider', 'source'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
}
