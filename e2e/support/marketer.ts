import { expect } from 'vitest';
import { api, createUser, uniqueEmail } from './browser.ts';
import { linkInMail } from './mailbox.ts';

/**
 * An owner ready to send: signed in (a session cookie), a sender address verified with the token of the mail the
 * mailbox received, and the account's mailing address set. The journeys of broadcasts, A/B tests and send times
 * start here. The token goes to the API the verification page posts it to (`POST /v1/sender-verification`): the
 * page itself, opened from the mail, is the senders journey's subject.
 */
export async function verifiedMarketer() {
  const user = await createUser();
  const cookie = (await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password }))
    .cookie!;
  const sender = uniqueEmail('news');
  expect((await api('POST', '/v1/settings/email/addresses', { email: sender }, cookie)).status).toBeLessThan(
    300,
  );
  const token = await linkInMail(sender, /\/public\/verify-sender\?token=([^\s&"<>]+)/);
  expect((await api('POST', '/v1/sender-verification', { token: decodeURIComponent(token) })).status).toBe(
    200,
  );
  expect(
    (await api('PATCH', '/v1/accounts/me', { mailingAddress: '1 Engine Way, London' }, cookie)).status,
  ).toBe(200);
  return { ...user, cookie, sender };
}
