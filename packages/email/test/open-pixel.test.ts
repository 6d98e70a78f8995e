import { describe, expect, it } from 'vitest';
import { render } from '../src/index.ts';
import { account, newsletter, options } from './fixtures.ts';

const pixelUrl = 'https://herald.test/t/o/b.1.2.3.4.5.0.abc&"x';

describe('open pixel', () => {
  it('sits just before </body> as a 1x1 image with empty alt text and an escaped source', () => {
    const { html, text } = render(newsletter, { firstName: 'Ada' }, account, {
      ...options,
      openPixelUrl: pixelUrl,
    });
    const img =
      '<img src="https://herald.test/t/o/b.1.2.3.4.5.0.abc&amp;&quot;x" alt="" width="1" height="1"';
    expect(html).toContain(img);
    const at = html.indexOf(img);
    expect(html.indexOf('</body>')).toBeGreaterThan(at);
    expect(html.slice(at, html.indexOf('</body>'))).toMatch(/^<img [^>]*>$/);
    expect(html.match(/<img /g)?.length).toBe((newsletter.html.match(/<img /g) ?? []).length + 1);
    expect(text).not.toContain('/t/o/');
  });

  it('goes before the closing body of a fragment (which compiles into a whole document) and of an upper-case </BODY>', () => {
    const fragment = render({ subject: 's', html: '<p>Hi</p>' }, {}, account, {
      ...options,
      openPixelUrl: 'https://h.test/p',
    }).html;
    expect(fragment).toMatch(/<p>Hi<\/p><img src="https:\/\/h\.test\/p" [^>]*><\/body>/i);
    const upper = render({ subject: 's', html: '<HTML><BODY><p>Hi</p></BODY></HTML>' }, {}, account, {
      ...options,
      openPixelUrl: 'https://h.test/p',
    }).html;
    expect(upper).toMatch(/<p>Hi<\/p><img src="https:\/\/h\.test\/p" [^>]*><\/body>/i);
    expect(upper.match(/h\.test\/p/g)?.length).toBe(1);
  });

  it('is not rewritten as a link and is absent when not asked for', () => {
    const seen: string[] = [];
    const { html } = render(
      { subject: 's', html: '<body><a href="https://a.example/">a</a></body>' },
      {},
      account,
      {
        ...options,
        openPixelUrl: 'https://h.test/p',
        rewriteLink: (url) => (seen.push(url), 'https://h.test/c'),
      },
    );
    expect(seen).toEqual(['https://a.example/']);
    expect(html).toContain(
      '<a href="https://h.test/c">a</a><img src="https://h.test/p" alt="" width="1" height="1" border="0" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0;overflow:hidden;"></body>',
    );
    expect(render(newsletter, {}, account, options).html).not.toContain('width="1" height="1"');
  });
});
