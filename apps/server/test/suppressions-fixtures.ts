import { expect } from 'vitest';
import { uniqueEmail, type registerUser, type TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the suppression and preference tests share: a server with a worker and an SMTP sink (team invitations), and
 * the calls that add a person and read one. A test file calls useSuppressionsContext() once: its own beforeAll builds
 * the server and its afterAll closes it; `ctx` and `smtp`, read live by the importers, name the current file's.
 */
export let ctx: TestContext;
export let smtp: SmtpSink;

export function useSuppressionsContext(): void {
  useSmtpContext({}, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

export type Owner = Awaited<ReturnType<typeof registerUser>>;
export const accountOf = (owner: Owner) => owner.account.accountId as number;
export async function addPerson(owner: Owner, email = uniqueEmail('person')) {
  const res = await owner.client.post('/v1/people/?source=manual', { email });
  expect(res.status).toBe(201);
  return res.body.user as { id: number; email: string };
}
export const person = async (owner: Owner, id: number) =>
  (await owner.client.get(`/v1/people/${id}`)).body.users[0];
