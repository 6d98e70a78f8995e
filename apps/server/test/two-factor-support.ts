import { sql } from 'kysely';
import { hotpCode, readTotpSecret, totpStep } from '../src/lib/totp.ts';
import type { Client, TestContext } from './helpers.ts';

/** The secret's code `offset` steps from now, as an authenticator app would show it. */
export function codeFor(secret: string, offset = 0): string {
  return hotpCode(readTotpSecret(secret), totpStep(Date.now()) + offset);
}

/** Turn two-factor on for the client's user through the profile calls; answers the secret, the code it
 * confirmed with and the recovery codes. */
export async function enrol(client: Client) {
  const setup = await client.post('/v1/profile/two-factor/setup');
  if (setup.status !== 200) throw new Error(`setup failed: ${JSON.stringify(setup.body)}`);
  const secret = (setup.body.secret as string).replace(/\s/g, '');
  const usedCode = codeFor(secret);
  const confirmed = await client.post('/v1/profile/two-factor/confirm', { code: usedCode });
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${JSON.stringify(confirmed.body)}`);
  return { secret, usedCode, recoveryCodes: confirmed.body.recoveryCodes as string[] };
}

/** The token of a link (`reset-password`, `accept-invite`) in the newest mail the product queued for `email`. */
export async function queuedLinkToken(
  ctx: TestContext,
  email: string,
  page = 'reset-password',
): Promise<string> {
  const row = await sql<{ text: string }>`
    select text_body as text from mail_deliveries where lower(to_address) = lower(${email})
    order by created_at desc limit 1`
    .execute(ctx.services.db)
    .then((r) => r.rows[0]);
  const match = new RegExp(`${page}\\?token=([^\\s"<]+)`).exec(row?.text ?? '');
  if (!match) throw new Error(`no ${page} mail for ${email}`);
  return decodeURIComponent(match[1]!);
}
