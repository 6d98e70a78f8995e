import { scopeIds, type ScopeId } from '@herald/contracts';
import type { ParsedMail } from 'mailparser';
import { Client, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import type { startSmtpServer } from './smtp.ts';

type Smtp = Awaited<ReturnType<typeof startSmtpServer>>;
type Owner = Awaited<ReturnType<typeof registerUser>>;

/** A valid new email, ready to POST. */
export function newEmail(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Welcome',
    subject: 'Welcome, {{ person.firstName | default: "friend" }}',
    fromName: 'Ada at Analytical',
    fromEmail: 'ada@analytical.example.com',
    html: '<html><head><style>p { color: #123456; }</style></head><body><p>Hi {{ person.firstName | default: "there" }}</p><a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>',
    ...overrides,
  };
}

function inviteToken(mail: ParsedMail): string {
  const match = /accept-invite\?token=([^\s"<]+)/.exec(mail.text ?? '');
  if (!match) throw new Error('no invitation link');
  return decodeURIComponent(match[1]!);
}

/** A team member of the owner's account holding exactly `enabled`, signed in (invitation mailed through `smtp`). */
export async function addMember(
  ctx: TestContext,
  smtp: Smtp,
  owner: Owner,
  enabled: ScopeId[],
  origin?: string,
): Promise<Client> {
  const email = uniqueEmail('member');
  const scopes = scopeIds.map((id) => ({ id, enabled: enabled.includes(id) }));
  const invited = await owner.client.post('/v1/team-members', { name: 'Member', email, scopes });
  if (invited.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invited.body)}`);
  const member = new Client(ctx.app, origin);
  const accepted = await member.post('/v1/team-members/invitations/accept', {
    token: inviteToken(await smtp.waitFor(email)),
    password: 'member password 1',
  });
  if (accepted.status !== 200) throw new Error(`accept failed: ${JSON.stringify(accepted.body)}`);
  return member;
}
