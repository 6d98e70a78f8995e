import type { Services } from '../../services.ts';
import { openToken, sealToken } from '../../lib/sealed-tokens.ts';

/** Links in a marketing email stay valid this long (a person may unsubscribe from an old email). */
const linkDays = 400;

/** What a preference or unsubscribe link stands for; sealed into its token, never in clear. */
export interface RecipientRef {
  accountId: number;
  personId: number;
  /** The category of the email the link came from. */
  categoryId?: number | null;
  /** What sent it: `email:{id}`, `broadcast:{id}`, `flow:{id}`, `test`. */
  source?: string;
}

export function recipientToken(secret: string, ref: RecipientRef): string {
  return sealToken(
    {
      a: ref.accountId,
      p: ref.personId,
      ...(ref.categoryId ? { c: ref.categoryId } : {}),
      ...(ref.source ? { s: ref.source } : {}),
    },
    secret,
    'preferences',
    linkDays * 86_400,
  );
}

export function readRecipientToken(secret: string, token: string): RecipientRef | null {
  const payload = openToken(token, secret, 'preferences');
  if (!payload || typeof payload.a !== 'number' || typeof payload.p !== 'number') return null;
  return {
    accountId: payload.a,
    personId: payload.p,
    categoryId: typeof payload.c === 'number' ? payload.c : null,
    source: typeof payload.s === 'string' ? payload.s.slice(0, 100) : undefined,
  };
}

/**
 * The per-recipient links every marketing email carries: the preference centre, the unsubscribe page, and
 * the same unsubscribe address for the List-Unsubscribe header, which takes the RFC 8058 one-click POST.
 */
export function recipientLinks(services: Services, ref: RecipientRef) {
  const token = recipientToken(services.secret, ref);
  const base = services.config.publicUrl;
  return {
    preferencesUrl: `${base}/public/subscription-preferences?token=${token}`,
    unsubscribeUrl: `${base}/public/unsubscribe?token=${token}`,
  };
}
