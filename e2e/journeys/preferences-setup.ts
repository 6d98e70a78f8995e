import { api, createUser } from '../support/browser.ts';

// What the preferences and suppressions journeys start from.

/** A phone's viewport, for the pages recipients open from their mail and the lists on a small screen. */
export const phone = { width: 390, height: 844 };

/** An owner signed in through the API, with a session cookie for setting the scene. */
export async function owner() {
  const user = await createUser();
  const session = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
  const cookie = session.cookie!;
  const account = (await api('GET', '/v1/accounts', undefined, cookie)).body as { name: string };
  return { ...user, cookie, accountName: account.name };
}
