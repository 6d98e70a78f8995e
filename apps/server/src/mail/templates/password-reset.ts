import { escapeHtml } from './escape-html.ts';

/** The password-reset email: a plain text part and a simple HTML part with the same link. */
export function passwordResetEmail(link: string, minutes: number) {
  const subject = 'Reset your Herald password';
  const text = [
    'Hi,',
    '',
    'Someone asked to reset the password of your Herald account. To choose a new password, open this link:',
    '',
    link,
    '',
    `The link works once and expires in ${minutes} minutes. If you did not ask for this, ignore this email: your password stays as it is.`,
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#1f2933;line-height:1.5">
<p>Hi,</p>
<p>Someone asked to reset the password of your Herald account.</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 18px;background:#4c6ef5;color:#fff;border-radius:6px;text-decoration:none">Choose a new password</a></p>
<p>The link works once and expires in ${minutes} minutes. If you did not ask for this, ignore this email: your password stays as it is.</p>
</body></html>`;
  return { subject, text, html };
}
