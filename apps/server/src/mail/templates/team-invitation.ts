import { escapeHtml } from './escape-html.ts';

/** Invitation to join an account; `link` is the signed accept link, or the app when the user already has a login. */
export function teamInvitationEmail(input: {
  accountName: string;
  inviterName: string;
  link: string;
  days: number;
  hasLogin: boolean;
}) {
  const subject = `${input.inviterName} invited you to ${input.accountName} on Herald`;
  const action = input.hasLogin
    ? `The account is now in your account list. Open Herald to switch to it:`
    : `Open this link to accept and choose your password (it expires in ${input.days} days):`;
  const text = [
    `Hi,`,
    '',
    `${input.inviterName} added you to the team of ${input.accountName} on Herald.`,
    action,
    '',
    input.link,
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#1f2933;line-height:1.5">
<p>Hi,</p>
<p>${escapeHtml(input.inviterName)} added you to the team of <strong>${escapeHtml(input.accountName)}</strong> on Herald.</p>
<p>${escapeHtml(action)}</p>
<p><a href="${escapeHtml(input.link)}" style="display:inline-block;padding:10px 18px;background:#4c6ef5;color:#fff;border-radius:6px;text-decoration:none">${input.hasLogin ? 'Open Herald' : 'Accept invitation'}</a></p>
</body></html>`;
  return { subject, text, html };
}
