import { describe, expect, it } from 'vitest';
import { compileEmail, render, renderCompiled } from '../src/index.ts';
import { account, newsletter, options } from './fixtures.ts';

const ada = {
  email: 'ada@example.com',
  firstName: 'Ada',
  plan: 'Pro',
  company: 'Analytical',
  userId: 'u 1/2',
};

describe('render', () => {
  it('renders a newsletter: personalised subject, inlined CSS, hidden preheader, text part, headers', () => {
    const message = render(newsletter, ada, account, options);
    expect(message).toMatchSnapshot();
  });

  it('inlines the CSS into the elements, keeps media queries, and leaves merge tags in attributes whole', () => {
    const { html } = render(newsletter, ada, account, options);
    expect(html).toMatch(/<h1 style="color: #1b1f3b; font-size: 24px;">Hello Ada<\/h1>/);
    expect(html).toMatch(/<td class="card" style="background: #ffffff; padding: 24px;">/);
    expect(html).toContain('@media (max-width: 600px)');
    expect(html).toContain('href="https://analytical.example.com/news?ref=u+1%2F2"');
    expect(html).toContain(
      'href="https://herald.test/public/subscription-preferences?token=abc&amp;unsubscribe=1"',
    );
  });

  it('puts the preheader first in the body, hidden, and keeps it out of the text part', () => {
    const { html, text } = render(newsletter, ada, account, options);
    expect(html).toMatch(
      /<body[^>]*><div style="display:none;[^"]*">What changed this week at Analytical Engines&#847;/,
    );
    expect(text).not.toContain('What changed this week');
  });

  it('derives the text part from the HTML, with links in angle brackets and values unescaped', () => {
    const { text } = render(newsletter, { ...ada, company: 'Smith & <Sons>' }, account, options);
    expect(text).toContain('Hello Ada');
    expect(text).toContain('Say hello to everyone at Smith & <Sons>.');
    expect(text).toMatch(/Read the news\s+<https:\/\/analytical.example.com\/news\?ref=u\+1%2F2>/);
    expect(text).toContain(
      'Unsubscribe <https://herald.test/public/subscription-preferences?token=abc&unsubscribe=1>',
    );
    expect(text).not.toMatch(/<\/?(p|td|h1|style)/);
  });

  it('wraps a fragment in a document', () => {
    const { html } = render({ subject: 'x', html: '<p>Hi</p>' }, {}, account, options);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toMatch(/<body><div style="display:none;[^"]*">&#847;/);
  });

  it('folds line breaks out of the subject and does not escape it', () => {
    const message = render(
      { subject: 'Hi {{ person.firstName }}\r\n{{ person.lastName }}', html: '' },
      { firstName: 'A <b>', lastName: 'B\r\nBcc: x@y.z' },
      account,
      options,
    );
    expect(message.subject).toBe('Hi A <b> B Bcc: x@y.z');
  });

  it('builds Message-ID and the RFC 8058 headers; one-click only for an https link', () => {
    expect(render(newsletter, ada, account, options).headers).toEqual({
      'Message-ID': '<0123456789abcdef@herald.test>',
      'List-Unsubscribe':
        '<https://herald.test/public/subscription-preferences?token=abc&unsubscribe=1>, <mailto:unsubscribe@herald.test?subject=unsubscribe-abc>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(render(newsletter, ada, account, { messageId: '<a@b>' }).headers).toEqual({
      'Message-ID': '<a@b>',
    });
    const http = render(newsletter, ada, account, {
      messageId: '<a@b>',
      unsubscribeUrl: 'http://localhost:3000/u',
    }).headers;
    expect(http['List-Unsubscribe']).toBe('<http://localhost:3000/u>');
    expect(http['List-Unsubscribe-Post']).toBeUndefined();
    expect(render(newsletter, ada, account, { messageId: '<a@b>\r\nBcc: x@y.z' }).headers['Message-ID']).toBe(
      '<a@b> Bcc: x@y.z',
    );
  });

  it('rewrites http(s) links through the given function, numbering them, and leaves its own links alone', () => {
    const seen: string[] = [];
    const { html } = render(
      {
        subject: 's',
        html: '<a href="https://a.example/?x=1&y=2">a</a><a href=\'http://b.example\'>b</a><a href="mailto:c@d.e">c</a><a href="{{ unsubscribe_url }}">u</a>',
      },
      {},
      account,
      { ...options, rewriteLink: (url, index) => (seen.push(url), `https://t.example/${index}`) },
    );
    expect(seen).toEqual(['https://a.example/?x=1&y=2', 'http://b.example']);
    expect(html).toContain(
      '<a href="https://t.example/0">a</a><a href="https://t.example/1">b</a><a href="mailto:c@d.e">c</a>',
    );
    expect(html).toContain('token=abc&amp;unsubscribe=1');
    expect(
      render({ subject: 's', html: '<a href="https://a.example/?x=1&y=2">a</a>' }, {}, account, options).html,
    ).toContain('href="https://a.example/?x=1&y=2"');
  });

  it('leaves a link whose URL holds a raw < or > as written (not a valid URL; the planned writing cuts after each >)', () => {
    const seen: string[] = [];
    const { html } = renderCompiled(
      compileEmail({
        subject: 's',
        html: '<a href="https://a.example/x<y>z">odd</a><a href="https://b.example/ok">ok</a>',
      }),
      {},
      account,
      { ...options, rewriteLink: (url) => (seen.push(url), 'https://t.example/') },
    );
    expect(seen).toEqual(['https://b.example/ok']);
    expect(html).toContain('href="https://a.example/x<y>z"');
  });

  it('carries the rewritten links into the text part, leaving its own links and other URLs as written', () => {
    const { html, text } = render(
      {
        subject: 's',
        html: '<p>Read <a href="https://a.example/?x=1&y=2">the news</a>, then <a href="https://b.example/b">b</a> and <a href="https://a.example/?x=1&y=2">again</a>.</p><p>Plain https://c.example/c stays.</p><a href="{{ unsubscribe_url }}">Unsubscribe</a>',
      },
      {},
      account,
      { ...options, rewriteLink: (url, index) => `https://t.example/${index}?u=${encodeURIComponent(url)}` },
    );
    expect(html).toContain('href="https://t.example/0?u=https%3A%2F%2Fa.example%2F%3Fx%3D1%26y%3D2"');
    expect(text).toContain('the news <https://t.example/0?u=https%3A%2F%2Fa.example%2F%3Fx%3D1%26y%3D2>');
    expect(text).toContain('b <https://t.example/1?u=https%3A%2F%2Fb.example%2Fb>');
    expect(text).not.toContain('<https://a.example/');
    expect(text).toContain('https://c.example/c');
    expect(text).toContain(
      'Unsubscribe <https://herald.test/public/subscription-preferences?token=abc&unsubscribe=1>',
    );
  });

  it('tags links with UTM parameters when asked, keeping links that carry their own and its own links', () => {
    const html =
      '<a href="https://a.example/x?y=1">a</a><a href="https://b.example/?utm_source=news">b</a><a href="{{ unsubscribe_url }}">u</a>';
    const out = render({ subject: 's', html }, {}, account, { ...options, utmCampaign: 'Spring sale' }).html;
    expect(out).toContain(
      'href="https://a.example/x?y=1&amp;utm_source=herald&amp;utm_medium=email&amp;utm_campaign=Spring+sale"',
    );
    expect(out).toContain('href="https://b.example/?utm_source=news"');
    expect(out).toContain('token=abc&amp;unsubscribe=1"');
  });

  it('compiles once and renders for many people', () => {
    const compiled = compileEmail(newsletter);
    const names = ['Ada', 'Grace', 'Edsger'];
    const subjects = names.map(
      (firstName) => renderCompiled(compiled, { firstName }, account, options).subject,
    );
    expect(subjects).toEqual(['Your free plan, Ada', 'Your free plan, Grace', 'Your free plan, Edsger']);
  });
});

describe('filters and fallbacks', () => {
  const one = (template: string, person: Record<string, unknown> = {}) =>
    render({ subject: template, html: '' }, person, account, options).subject;

  it.each([
    ['{{ person.firstName | default: "there" }}', {}, 'there'],
    ['{{ person.firstName | default: "there" }}', { firstName: null }, 'there'],
    ['{{ person.firstName | default: "there" }}', { firstName: '' }, 'there'],
    ['{{ person.firstName | default: "there" }}', { firstName: 'Ada' }, 'Ada'],
    ['{{ person.vip | default: "no" }}', { vip: false }, 'no'],
    ['{{ person.vip | default: "no", allow_false: true }}', { vip: false }, 'false'],
    ['{{ person.count | default: 5 }}', { count: 0 }, '0'],
    ['{{ person.missing }}', {}, ''],
    ['{{ person.firstName | upcase }}', { firstName: 'ada' }, 'ADA'],
    ['{{ person.firstName | downcase }}', { firstName: 'ADA' }, 'ada'],
    ['{{ person.firstName | capitalize }}', { firstName: 'ada lovelace' }, 'Ada lovelace'],
    ['{{ person.firstName | strip }}', { firstName: '  ada  ' }, 'ada'],
    ['{{ person.bio | truncate: 8 }}', { bio: 'Analytical engines' }, 'Analy...'],
    ['{{ person.bio | truncatewords: 1 }}', { bio: 'Analytical engines' }, 'Analytical...'],
    ['{{ person.firstName | append: "!" }}', { firstName: 'Ada' }, 'Ada!'],
    ['{{ person.firstName | prepend: "Dear " }}', { firstName: 'Ada' }, 'Dear Ada'],
    ['{{ person.firstName | replace: "a", "o" }}', { firstName: 'Ada' }, 'Ado'],
    ['{{ person.firstName | size }}', { firstName: 'Ada' }, '3'],
    ['{{ person.tags | join: ", " }}', { tags: ['a', 'b'] }, 'a, b'],
    ['{{ person.tags | first }}', { tags: ['a', 'b'] }, 'a'],
    ['{{ person.email | url_encode }}', { email: 'a+b@c.d' }, 'a%2Bb%40c.d'],
    ['{{ person.score | plus: 1 }}', { score: 41 }, '42'],
    ['{{ person.signedUp | date: "%Y-%m-%d" }}', { signedUp: '2026-03-01T12:00:00Z' }, '2026-03-01'],
    ['{% if person.plan == "Pro" %}pro{% else %}other{% endif %}', { plan: 'Pro' }, 'pro'],
    [
      '{% for t in person.tags %}{{ t }}{% unless forloop.last %}+{% endunless %}{% endfor %}',
      { tags: ['a', 'b', 'c'] },
      'a+b+c',
    ],
    ['{{ person["first name"] | default: "x" }}', { 'first name': 'Ada' }, 'Ada'],
    ['{{ account.name }} / {{ account.site }}', {}, 'Analytical Engines / https://analytical.example.com'],
    [
      '{{ unsubscribe_url }}',
      {},
      'https://herald.test/public/subscription-preferences?token=abc&unsubscribe=1',
    ],
  ])('%s with %j → %s', (template, person, expected) => {
    expect(one(template, person)).toBe(expected);
  });

  it('escapes values in the HTML, fallbacks too, unless the author writes | raw', () => {
    const html = (template: string, person: Record<string, unknown>) =>
      render({ subject: 's', html: template }, person, account, options).html;
    expect(html('<p>{{ person.firstName }}</p>', { firstName: '<script>alert(1)</script>' })).toContain(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
    expect(html('<p>{{ person.x | default: "Tom & Jerry" }}</p>', {})).toContain('<p>Tom &amp; Jerry</p>');
    expect(html('<a title="{{ person.x }}">x</a>', { x: '" onmouseover="alert(1)' })).toContain(
      'title="&#34; onmouseover=&#34;alert(1)"',
    );
    expect(html('{{ person.snippet | raw }}', { snippet: '<b>bold</b>' })).toContain('<b>bold</b>');
  });

  it('renders account values empty when the account has none', () => {
    expect(
      render(
        { subject: '[{{ account.mailingAddress }}]', html: '' },
        {},
        { name: null, mailingAddress: null, site: null },
        options,
      ).subject,
    ).toBe('[]');
  });
});
