import { compileEmail, renderCompiled, type RenderAccount } from '@herald/email';

const people = 10_000;

/** A 10 kB newsletter with five merge tags, the shape a broadcast sends: a style block, a layout table, paragraphs and links. */
export function newsletter(): { subject: string; preheader: string; html: string } {
  const paragraph =
    '<tr><td class="body"><p>Our engines now run faster and quieter. This paragraph stands for the news a marketer writes each week, ' +
    'with a <a href="https://example.com/news">link to read more</a> and enough words to weigh what a real paragraph weighs.</p></td></tr>\n';
  const head =
    '<!DOCTYPE html><html><head><style>body{margin:0;background:#f4f4f7}.body{padding:16px 24px;font-family:Arial,sans-serif;color:#333}' +
    'h1{font-size:24px;color:#1b1f3b}a{color:#3b5bdb}.footer{font-size:12px;color:#666}</style></head><body>' +
    '<table role="presentation" width="600" align="center">' +
    '<tr><td class="body"><h1>Hello {{ person.firstName | default: "there" }}</h1>' +
    '<p>Here is what changed for {{ person.company | default: "your team" }} on the {{ person.plan | default: "free" }} plan.</p></td></tr>\n';
  const footer =
    '<tr><td class="footer"><p>{{ account.name }}, {{ account.mailingAddress }}</p>' +
    '<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p></td></tr></table></body></html>';
  let body = '';
  while ((head + body + footer).length < 10_000) body += paragraph;
  return {
    subject: 'News for you, {{ person.firstName | default: "friend" }}',
    preheader: 'This week at {{ account.name }}',
    html: head + body + footer,
  };
}

/**
 * render-10k: one 10 kB email with five merge tags rendered for 10,000 different people on one
 * core (compiled once, as a broadcast does). Figure: emails rendered per second.
 */
export async function render10k(): Promise<{ figure: number; unit: string }> {
  const email = newsletter();
  console.log(`email: ${email.html.length} characters of HTML, 5 merge tags in the body and subject`);
  const compiledAt = performance.now();
  const compiled = compileEmail(email);
  console.log(
    `compiled (CSS inlined, text part derived) in ${(performance.now() - compiledAt).toFixed(1)} ms`,
  );
  const account: RenderAccount = {
    name: 'Analytical Engines',
    mailingAddress: '1 Engine Way, London',
    site: 'https://example.com',
  };
  const persons = Array.from({ length: people }, (_, i) => ({
    email: `person${i}@example.com`,
    firstName: i % 7 === 0 ? null : `Person ${i}`,
    company: `Company ${i % 500}`,
    plan: i % 3 === 0 ? 'Pro' : 'Starter',
    tags: ['customer'],
  }));
  const renderOne = (i: number) =>
    renderCompiled(compiled, persons[i]!, account, {
      messageId: `<render-${i}@herald.test>`,
      unsubscribeUrl: `https://herald.test/public/subscription-preferences?token=${i}`,
      unsubscribeMailto: `mailto:unsubscribe@herald.test?subject=${i}`,
    });
  for (let i = 0; i < 500; i++) renderOne(i);
  console.log('warmed up on 500 renders');
  let bytes = 0;
  const started = performance.now();
  for (let i = 0; i < people; i++) {
    const message = renderOne(i);
    bytes += message.html.length + message.text.length;
    if ((i + 1) % 2_500 === 0)
      console.log(`${i + 1} rendered (${((i + 1) / ((performance.now() - started) / 1000)).toFixed(0)}/s)`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${people} emails in ${seconds.toFixed(2)} s, ${(bytes / people / 1000).toFixed(1)} kB of HTML and text each`,
  );
  return { figure: Math.round(people / seconds), unit: 'emails/s' };
}
