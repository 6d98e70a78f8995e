import { describe, expect, it } from 'vitest';
import { compileEmail, renderCompiled } from '../src/index.ts';

describe('a stray < in the HTML', () => {
  it('is text: it cannot swallow the merge tag after it, in the HTML or the text part', async () => {
    const compiled = compileEmail({
      subject: 'Hi',
      html: '<p>{% if person.vip %}<{% endif %} 3 < 4 {{ person.firstName }}</p>',
    });
    const message = await renderCompiled(
      compiled,
      { firstName: 'Ann', vip: true },
      { name: 'Acme', mailingAddress: null, site: null },
      { messageId: '<x@y>' },
    );
    expect(message.html).toContain('&lt; 3 &lt; 4 Ann');
    expect(message.text).toContain('< 3 < 4 Ann');
  });
});
