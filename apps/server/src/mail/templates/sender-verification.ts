import { escapeHtml } from './escape-html.ts';

/** The mail that proves an account may send from an address: one link, valid for `days` days. */
export function senderVerificationEmail(input: {
  accountName: string;
  address: string;
  link: string;
  days: number;
}) {
  const subject = `Confirm ${input.address} as a sender on Herald`;
  const text = [
    'Hi,',
    '',
    `${input.accountName} wants to send email from ${input.address} with Herald.`,
    `Open this link to confirm that this address may be used (it expires in ${input.days} days):`,
    '',
    input.link,
    '',
    'If you did not expect this, ignore this email: nothing is sent from the address until it is confirmed.',
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#1f2933;line-height:1.5">
<p>Hi,</p>
<p><strong>${escapeHtml(input.accountName)}</strong> wants to send email from <strong>${escapeHtml(input.address)}</strong> with Herald.</p>
<p>Confirm that this address may be used (the link expires in ${input.days} days):</p>
<p><a href="${escapeHtml(input.link)}" style="display:inline-block;padding:10px 18px;background:#4c6ef5;color:#fff;border-radius:6px;text-decoration:none">Confirm sender address</a></p>
<p style="color:#52606d;font-size:13px">If you did not expect this, ignore this email: nothing is sent from the address until it is confirmed.</p>
</body></html>`;
  return { subject, text, html };
}
