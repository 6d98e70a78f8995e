/** Markers around the writer's part of a rich-text email, so the editor can read it back from the HTML alone. */
const start = '<!--herald:richtext-->';
const end = '<!--/herald:richtext-->';

/**
 * The document a rich-text email is sent as: the writer's HTML in a centred 600 px table with
 * email-safe fonts and spacing (the renderer inlines the CSS).
 */
export function wrapRichText(body: string): string {
  return `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { margin: 0; background: #ffffff; }
  .content { padding: 24px; font-family: Helvetica, Arial, sans-serif; font-size: 16px; line-height: 1.6; color: #2b2f3a; }
  .content h1 { font-size: 26px; line-height: 1.3; margin: 0 0 16px; }
  .content h2 { font-size: 21px; line-height: 1.3; margin: 24px 0 8px; }
  .content h3 { font-size: 18px; margin: 20px 0 8px; }
  .content p { margin: 0 0 16px; }
  .content a { color: #3b5bdb; }
  .content blockquote { margin: 0 0 16px; padding-left: 16px; border-left: 3px solid #dee2e6; color: #5c6270; }
</style>
</head>
<body>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width: 600px; width: 100%;"><tr><td class="content">
${start}${body}${end}
</td></tr></table>
</td></tr></table>
</body>
</html>`;
}

/** The writer's part of a rich-text email's HTML; the whole body for HTML written elsewhere (a template). */
export function unwrapRichText(html: string): string {
  const from = html.indexOf(start);
  const to = html.indexOf(end);
  if (from >= 0 && to > from) return html.slice(from + start.length, to);
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html);
  return body ? body[1]! : html;
}
