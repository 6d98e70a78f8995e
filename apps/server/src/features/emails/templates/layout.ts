/**
 * The frame every starter template shares: a 600 px centred table (what every mail client lays out
 * the same way), web-safe fonts, CSS in one <style> block that the renderer inlines, and a footer with
 * the account's mailing address and the unsubscribe and preferences links.
 */
export function layout(options: { title: string; accent: string; rows: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title}</title>
<style>
  body { margin: 0; padding: 0; background: #f3f4f8; }
  .wrapper { width: 100%; background: #f3f4f8; padding: 24px 0; }
  .card { width: 600px; max-width: 100%; background: #ffffff; border-radius: 8px; }
  .content { padding: 32px 40px; font-family: Helvetica, Arial, sans-serif; font-size: 16px; line-height: 1.6; color: #2b2f3a; }
  .content h1 { margin: 0 0 16px; font-size: 26px; line-height: 1.3; color: #161a26; }
  .content h2 { margin: 24px 0 8px; font-size: 19px; color: #161a26; }
  .content p { margin: 0 0 16px; }
  .band { height: 6px; background: ${options.accent}; border-radius: 8px 8px 0 0; }
  .button { display: inline-block; padding: 12px 24px; background: ${options.accent}; color: #ffffff; text-decoration: none; border-radius: 6px; font-weight: bold; }
  .muted { color: #5c6270; font-size: 14px; }
  .footer { padding: 16px 40px 32px; font-family: Helvetica, Arial, sans-serif; font-size: 12px; line-height: 1.5; color: #5c6270; text-align: center; }
  .footer a { color: #5c6270; }
  @media (max-width: 620px) { .content { padding: 24px 20px; } .footer { padding: 16px 20px 24px; } }
</style>
</head>
<body>
<table role="presentation" class="wrapper" width="100%" cellpadding="0" cellspacing="0">
  <tr><td align="center">
    <table role="presentation" class="card" width="600" cellpadding="0" cellspacing="0">
      <tr><td class="band"></td></tr>
${options.rows}
    </table>
    <table role="presentation" width="600" cellpadding="0" cellspacing="0">
      <tr><td class="footer">
        <p>{{ account.name }} · {{ account.mailingAddress }}</p>
        <p>You get this email because you signed up with {{ account.name }}.
          <a href="{{ preferences_url }}">Email preferences</a> · <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>
      </td></tr>
    </table>
  </td></tr>
</table>
</body>
</html>`;
}

/** One content row of the card. */
export const row = (html: string) => `      <tr><td class="content">\n${html}\n      </td></tr>`;
