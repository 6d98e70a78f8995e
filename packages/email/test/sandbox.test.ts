import { emailMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { compileEmail, render, TemplateError } from '../src/index.ts';
import { account, options } from './fixtures.ts';

function failure(run: () => unknown): TemplateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return error as TemplateError;
  }
  throw new Error('expected a template error');
}

describe('template errors name the part and the line', () => {
  it('a syntax error in the HTML', () => {
    const error = failure(() => compileEmail({ subject: 'Hi', html: '<p>one</p>\n<p>two</p>\n{% if %}' }));
    expect(error).toMatchObject({ part: 'html', line: 3 });
    expect(error.message).toBe(emailMessages.templateError('content', 3, error.detail));
    expect(error.detail).not.toMatch(/line:/);
  });

  it('an unknown filter, an unclosed tag, an unclosed output', () => {
    expect(
      failure(() => compileEmail({ subject: 'Hi', html: '\n{{ person.firstName | shout }}' })),
    ).toMatchObject({ part: 'html', line: 2, detail: 'undefined filter: shout' });
    expect(failure(() => compileEmail({ subject: 'Hi', html: '{% for x in y %}' })).part).toBe('html');
    expect(failure(() => compileEmail({ subject: 'Hi {{ person.firstName', html: '' })).part).toBe('subject');
    expect(failure(() => compileEmail({ subject: 'Hi', preheader: '{% endif %}', html: '' })).part).toBe(
      'preheader',
    );
  });

  it('line numbers are those of the HTML as written, not of the inlined document', () => {
    const html =
      '<html><head><style>\np { color: red }\n</style></head>\n<body>\n<p>x</p>\n{{ a | nope }}\n</body></html>';
    expect(failure(() => compileEmail({ subject: 's', html })).line).toBe(6);
  });
});

describe('the sandbox', () => {
  it('refuses include, render and layout: emails cannot read files', () => {
    for (const tag of ['{% include "/etc/passwd" %}', '{% render "secret" %}', '{% layout "base" %}']) {
      expect(failure(() => compileEmail({ subject: 's', html: tag })).detail).toMatch(
        /is not available in emails/,
      );
    }
  });

  it('reads own properties only: no prototype, constructor or functions', () => {
    const html =
      '<p>{{ person.constructor }}|{{ person.__proto__ }}|{{ person.toString }}|{{ account.constructor.name }}|{{ person.hasOwnProperty }}</p>';
    const { html: out } = render({ subject: 's', html }, { email: 'a@b.c' }, account, options);
    expect(out).toContain('<p>||||</p>');
    expect(out).not.toMatch(/function|Object|\[native code\]/);
  });

  it('stops a runaway loop within the time limit', () => {
    const loop = '{% for a in (1..100000) %}{% for b in (1..100000) %}{{ a }}{% endfor %}{% endfor %}';
    const started = performance.now();
    const error = failure(() =>
      render({ subject: 's', html: loop }, {}, account, { ...options, limits: { renderMs: 200 } }),
    );
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(error.detail).toMatch(/limit/);
  });

  it('stops output that grows past the size limit', () => {
    const big = '{% for a in (1..2000) %}{{ person.blob }}{% endfor %}';
    const error = failure(() =>
      render({ subject: 's', html: big }, { blob: 'x'.repeat(1000) }, account, {
        ...options,
        limits: { outputLength: 1_000_000 },
      }),
    );
    expect(error.detail).toMatch(/larger than 1,000,000 characters|limit/);
  });

  it('stops string building that would exhaust memory', () => {
    const bomb =
      '{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}';
    expect(failure(() => render({ subject: 's', html: bomb }, {}, account, options)).detail).toMatch(/limit/);
  });

  it('keeps scripts, iframes and handlers the author wrote (the app previews them sandboxed)', () => {
    const html =
      '<p onclick="alert(1)">x</p><script>alert(1)</script><iframe src="https://a.example"></iframe>';
    const out = render({ subject: 's', html }, {}, account, options).html;
    expect(out).toContain('<script>alert(1)</script>');
    expect(out).toContain('onclick="alert(1)"');
  });
});
