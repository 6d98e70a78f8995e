import type { RenderAccount, RenderOptions } from '../src/index.ts';

export const account: RenderAccount = {
  name: 'Analytical Engines',
  mailingAddress: '1 Engine Way, London',
  site: 'https://analytical.example.com',
};

export const options: RenderOptions = {
  messageId: '<0123456789abcdef@herald.test>',
  unsubscribeUrl: 'https://herald.test/public/subscription-preferences?token=abc&unsubscribe=1',
  unsubscribeMailto: 'mailto:unsubscribe@herald.test?subject=unsubscribe-abc',
  preferencesUrl: 'https://herald.test/public/subscription-preferences?token=abc',
  viewInBrowserUrl: 'https://herald.test/public/emails/view?token=abc',
};

/** A newsletter the way the editors produce it: a style block, a layout table, merge tags in text and attributes. */
export const newsletter = {
  subject: 'Your {{ person.plan | default: "free" }} plan, {{ person.firstName | default: "friend" }}',
  preheader: 'What changed this week at {{ account.name }}',
  html: `<!DOCTYPE html>
<html>
<head>
<style>
  body { margin: 0; background: #f4f4f7; }
  .card { background: #ffffff; padding: 24px; }
  h1 { color: #1b1f3b; font-size: 24px; }
  a.button { background: #3b5bdb; color: #ffffff; padding: 12px 20px; }
  @media (max-width: 600px) { .card { padding: 12px; } }
</style>
</head>
<body>
<table role="presentation" width="600" align="center">
  <tr><td class="card">
    <h1>Hello {{ person.firstName | default: "friend" }}</h1>
    <p>Thanks for being on the {{ person.plan | default: "free" }} plan.</p>
    {% if person.company %}<p>Say hello to everyone at {{ person.company }}.</p>{% endif %}
    <a class="button" href="https://analytical.example.com/news?ref={{ person.userId | url_encode }}">Read the news</a>
  </td></tr>
  <tr><td>
    <p>{{ account.name }}, {{ account.mailingAddress }}</p>
    <p><a href="{{ unsubscribe_url }}">Unsubscribe</a> or <a href="{{ preferences_url }}">change your preferences</a>.</p>
  </td></tr>
</table>
</body>
</html>`,
};
