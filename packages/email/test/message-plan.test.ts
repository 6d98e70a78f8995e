import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSources } from '../src/compile.ts';
import { planEmail, type LinkTracking, type PlannedMessageOptions } from '../src/message-plan.ts';
import { writePlanned, writePlannedPieces } from '../src/planned-message.ts';
import { toMime } from '../src/mime.ts';
import { parseSources } from '../src/parsed.ts';
import { renderCompiled } from '../src/render.ts';
import type { RenderAccount, RenderOptions } from '../src/types.ts';

/** The headers (less Date and the boundary) and each part's decoded text of a message toMime wrote. */
function decode(mime: string) {
  expect(mime).not.toMatch(/(^|[^\r])\n/);
  const boundary = /boundary="([^"]+)"/.exec(mime)![1]!;
  const [head, ...rest] = mime.split(`\r\n--${boundary}`);
  const parts = rest.slice(0, -1).map((part) => {
    const [headers, body] = [
      part.slice(0, part.indexOf('\r\n\r\n')),
      part.slice(part.indexOf('\r\n\r\n') + 4),
    ];
    const encoding = /Content-Transfer-Encoding: (\S+)/.exec(headers)![1]!;
    for (const line of body.split('\r\n')) {
      expect(line.length).toBeLessThanOrEqual(76);
      expect(line.startsWith('.')).toBe(false);
    }
    if (encoding === 'base64')
      return { encoding, text: Buffer.from(body.replace(/\r\n/g, ''), 'base64').toString('utf8') };
    expect(body).not.toMatch(/[ \t]$/);
    const joined = body.replace(/=\r\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < joined.length; i++) {
      if (joined[i] === '=') {
        bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
        i += 2;
      } else bytes.push(joined.charCodeAt(i));
    }
    return { encoding, text: Buffer.from(bytes).toString('utf8') };
  });
  return {
    headers: head!.replace(/^Date: .*$/m, '').replace(boundary, 'B'),
    text: parts[0]!,
    html: parts[1]!,
  };
}

const account: RenderAccount = {
  name: 'Analytical Engines',
  mailingAddress: '1 Engine Way, London',
  site: 'https://example.com',
};
const tracking: LinkTracking = {
  suffixFor: (url) => (url.length > 70 ? null : `s1g/${url.length}?u=${encodeURIComponent(url)}&k=1`),
};
const linkPrefix = 'https://h.test/t/c/b.1.2s.5.tok/';

/** The long way, with the plan's link rewriting spelled out as a rewriter. */
function longWay(
  compiled: ReturnType<typeof parseSources>,
  person: Record<string, unknown>,
  options: PlannedMessageOptions,
  plan: { utmCampaign?: string; tracking?: LinkTracking },
) {
  const rewriteLink = plan.tracking
    ? (url: string) => {
        const suffix = plan.tracking!.suffixFor(url);
        return suffix === null ? url : linkPrefix + suffix;
      }
    : undefined;
  const renderOptions: RenderOptions = {
    ...options,
    ...(rewriteLink ? { rewriteLink } : {}),
    ...(plan.utmCampaign !== undefined ? { utmCampaign: plan.utmCampaign } : {}),
  };
  const rendered = renderCompiled(compiled, person, account, renderOptions);
  return toMime({
    ...options.mime,
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    messageId: options.messageId,
    headers: rendered.headers,
  });
}

const filler =
  'Our engines now run faster and quieter; this sentence stands for the news a marketer writes each week. ';
const staticBits = [
  `<p>${filler}</p>`,
  `<p>${filler}<a href="https://example.com/news?a=1&amp;b=2">read more</a> ${filler}</p>\n`,
  `<td style="padding: 16px; color: #333;"><a href='http://example.org/b'>b</a></td>`,
  '<a href="https://example.com/a-very-long-destination-that-is-not-tracked/because/it/is/long/enough/really">long</a>',
  '<a href="https://example.com/x<y>z">odd</a>',
  '<a href="https://example.com/news">https://example.com/news</a> and https://bare.example/path in text',
  '</body>',
  '</BODY>',
  '\n\n\n\n',
  '\n.dot line\n.',
  ' = equals = ',
  'Grüße, Zoë — ☕ ',
  '\t tab ',
  '   ',
  `<div>${'x'.repeat(200)}</div>`,
  '<p>[bracketed] "quoted" (round) https://in-text.example/q</p>',
  // The unsubscribe link written into the markup: Herald's own links are never rewritten.
  `<p>${filler}<a href="https://h.test/public/unsubscribe?token=a&amp;b">leave</a></p>`,
];
const dynamicBits = [
  '{{ person.firstName }}',
  '{{ person.snippet | raw }}',
  '{% if person.vip %}<b>VIP <a href="https://example.com/vip">v</a></b>{% endif %}',
  '<a href="{{ unsubscribe_url }}">unsubscribe</a>',
  '<a href="https://example.com/p/{{ person.id }}">mine</a>',
  '{% assign z = person.firstName %}<i>{{ z }}</i>',
  '{{- person.firstName -}}',
  '{% for i in (1..2) %}<a href="https://example.com/loop">{{ i }}</a>{% endfor %}',
];

const templateOf = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...staticBits) },
      { weight: 1, arbitrary: fc.constantFrom(...dynamicBits) },
    ),
    { minLength: 1, maxLength: 24 },
  )
  .map((bits) => bits.join(''));

const personOf = fc.record({
  firstName: fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.constantFrom('Ada', '= x ', 'end ', '.dot', 'https://example.com/news'),
  ),
  snippet: fc.constantFrom(
    '',
    '<a href="https://dyn.example/p">dyn</a>',
    '</body>',
    'https://bare.example/path',
    'Grüße ',
    '\n\n\n',
    `${'é'.repeat(400)}`,
  ),
  vip: fc.boolean(),
  id: fc.nat(1000),
});

const optionsOf = fc.record({
  tracked: fc.boolean(),
  utm: fc.option(fc.constantFrom('Spring sale', 'q=1&x'), { nil: undefined }),
  pixel: fc.boolean(),
  unsubscribe: fc.boolean(),
});

describe('planned writing', () => {
  it('decodes to exactly what renderCompiled and toMime write, for any template, person and options', () => {
    fc.assert(
      fc.property(
        templateOf,
        fc.option(templateOf, { nil: undefined }),
        fc.boolean(),
        fc.array(personOf, { minLength: 1, maxLength: 3 }),
        optionsOf,
        (html, text, asWritten, people, choice) => {
          const sources = compileSources({
            subject: 'Hi {{ person.firstName }}',
            preheader: 'This week',
            html,
          });
          // The text part as compileSources derives it, or a template of its own (links, blank lines, edges); the HTML
          // as compileSources makes it (a whole document), or as written (it may end in a space or hold no body tag).
          const compiled = parseSources({
            ...sources,
            ...(text === undefined ? {} : { text }),
            ...(asWritten ? { html } : {}),
          });
          const planOptions = {
            ...(choice.tracked ? { tracking } : {}),
            ...(choice.utm !== undefined ? { utmCampaign: choice.utm } : {}),
          };
          const plan = planEmail(compiled, planOptions);
          for (const person of people) {
            const options: PlannedMessageOptions = {
              messageId: '<m1@herald.test>',
              linkPrefix,
              ...(choice.pixel ? { openPixelUrl: 'https://h.test/t/o/b.1.2s.5.tok' } : {}),
              ...(choice.unsubscribe
                ? {
                    unsubscribeUrl: 'https://h.test/public/unsubscribe?token=a&b',
                    preferencesUrl: 'https://h.test/public/subscription-preferences?token=a&b',
                  }
                : {}),
              mime: {
                from: '"Bench" <news@herald.test>',
                to: 'reader@example.org',
                replyTo: null,
                date: new Date(0),
              },
            };
            const { message } = writePlannedPieces(plan, person, account, options);
            // In pieces (what an SMTP connection writes): the header block ends at the first blank line, and the
            // body goes on the wire one byte a character.
            expect(message.head.indexOf('\r\n\r\n')).toBe(message.head.length - 4);
            for (const piece of message.body) expect(piece).toMatch(/^[\x00-\x7f]*$/);
            const boundaries = (mime: string) => mime.replace(/=_herald_[0-9a-f]+_[0-9a-z]+/g, 'boundary');
            expect(boundaries(message.head + message.body.join(''))).toBe(
              boundaries(writePlanned(plan, person, account, options).mime),
            );
            const planned = decode(writePlanned(plan, person, account, options).mime);
            const expected = decode(longWay(compiled, person, options, planOptions));
            expect(planned.headers).toBe(expected.headers);
            expect(planned.html.text).toBe(expected.html.text);
            expect(planned.text.text).toBe(expected.text.text);
            expect(planned.html.encoding).toBe(expected.html.encoding);
            expect(planned.text.encoding).toBe(expected.text.encoding);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('cuts a newsletter into stretches and rewrites its links once', () => {
    const paragraph = `<tr><td class="body"><p>${filler}<a href="https://example.com/news">read more</a></p></td></tr>\n`;
    const sources = compileSources({
      subject: 'News',
      html: `<html><body><table><tr><td><h1>Hello {{ person.firstName }}</h1></td></tr>${paragraph.repeat(30)}</table><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p></body></html>`,
    });
    const plan = planEmail(parseSources(sources), { tracking });
    expect(plan.html.stretches.length).toBeGreaterThan(0);
    expect(plan.html.stretches.reduce((n, s) => n + s.prefixes, 0)).toBe(30);
    expect(plan.text.stretches.reduce((n, s) => n + s.prefixes, 0)).toBe(30);
    expect([...plan.staticLinks.keys()]).toEqual(['https://example.com/news']);
    const { mime } = writePlanned(plan, { firstName: 'Ada' }, account, {
      messageId: '<m@h>',
      linkPrefix,
      mime: { from: 'a@b.c', to: 'd@e.f' },
    });
    expect(decode(mime).html.text.split(`${linkPrefix}s1g/`).length - 1).toBe(30);
  });

  it('writes the long way when its markers do not come back', () => {
    const compiled = parseSources(
      compileSources({
        subject: 'x',
        html: `<p>${filler.repeat(3)}</p>{{ person.firstName }}<p>${filler.repeat(3)}</p>`,
      }),
    );
    const plan = planEmail(compiled, {});
    // A plan whose marker the templates never write stands for one a template swallowed.
    plan.html.markers[0] = '\u0001not-there\u0002';
    const options = { messageId: '<m@h>', mime: { from: 'a@b.c', to: 'd@e.f', date: new Date(0) } };
    expect(decode(writePlanned(plan, { firstName: 'Ada' }, account, options).mime)).toEqual(
      decode(longWay(compiled, { firstName: 'Ada' }, options, {})),
    );
  });
});
