import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { toMime } from '../src/mime.ts';

const base = {
  from: '"Ada at Analytical" <ada@example.com>',
  to: 'reader@example.org',
  subject: 'Hello',
  html: '<p>Hi</p>',
  text: 'Hi',
  messageId: '<abc@herald.test>',
};

describe('toMime', () => {
  it('writes headers and both parts that a mail parser reads back', async () => {
    const mime = toMime({
      ...base,
      replyTo: 'replies@example.com',
      subject: 'Grüße, Zoë — 50 % off 🎉',
      from: 'Zoë Café <zoe@example.com>',
      headers: { 'List-Unsubscribe': '<https://herald.test/public/unsubscribe?token=abc>, <mailto:u@herald.test>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'Message-ID': '<ignored@x>' },
    });
    expect(mime).not.toMatch(/[^\r]\n/);
    expect(mime.split('\r\n').every((line) => line.length <= 998)).toBe(true);
    const parsed = await simpleParser(mime);
    expect(parsed.subject).toBe('Grüße, Zoë — 50 % off 🎉');
    expect(parsed.from?.value[0]).toEqual({ name: 'Zoë Café', address: 'zoe@example.com' });
    expect(parsed.replyTo?.value[0]?.address).toBe('replies@example.com');
    expect(parsed.messageId).toBe('<abc@herald.test>');
    expect(parsed.headerLines.filter((h) => h.key === 'message-id')).toHaveLength(1);
    expect(parsed.headerLines.find((h) => h.key === 'list-unsubscribe-post')?.line).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(parsed.headerLines.find((h) => h.key === 'list-unsubscribe')?.line.replace(/\r\n /g, ' ')).toBe('List-Unsubscribe: <https://herald.test/public/unsubscribe?token=abc>, <mailto:u@herald.test>');
    expect(parsed.html).toBe('<p>Hi</p>');
    expect(parsed.text?.trim()).toBe('Hi');
  });

  it('round-trips any subject, name, HTML and text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 120 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }).filter((n) => !/["\\<>\r\n]/.test(n) && n.trim() === n),
        fc.string({ unit: 'grapheme', maxLength: 3000 }),
        fc.string({ unit: 'grapheme', maxLength: 3000 }),
        async (subject, name, html, text) => {
          const mime = toMime({ ...base, subject, from: name ? `${name} <ada@example.com>` : 'ada@example.com', html: `<p>${html}</p>`, text: `${text}.`, headers: { 'X-Note': `.${subject}` } });
          // Ready for the wire as it is: CRLF only, and no line that SMTP would need to dot-stuff.
          expect(mime).not.toMatch(/(^|[^\r])\n/);
          expect(mime).not.toMatch(/(^|\n)\./);
          const parsed = await simpleParser(mime);
          expect((parsed.subject ?? '').trim()).toBe(subject.replace(/[\r\n]+/g, ' ').trim());
          expect(parsed.html).toBe(`<p>${html}</p>`);
          expect(parsed.text).toBe(`${text}.`);
          expect(parsed.from?.value[0]?.address).toBe('ada@example.com');
          if (name && name.trim()) expect(parsed.from?.value[0]?.name).toBe(name);
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);
});
