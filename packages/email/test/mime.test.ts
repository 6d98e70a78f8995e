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

const lf = (value: string | false | undefined) => (value || '').replace(/\r+\n|\r/g, '\n');

describe('toMime', () => {
  it('writes headers and both parts that a mail parser reads back', async () => {
    const mime = toMime({
      ...base,
      replyTo: 'replies@example.com',
      subject: 'Grüße, Zoë — 50 % off 🎉',
      from: 'Zoë Café <zoe@example.com>',
      headers: {
        'List-Unsubscribe': '<https://herald.test/public/unsubscribe?token=abc>, <mailto:u@herald.test>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'Message-ID': '<ignored@x>',
      },
    });
    expect(mime).not.toMatch(/[^\r]\n/);
    expect(mime.split('\r\n').every((line) => line.length <= 998)).toBe(true);
    const parsed = await simpleParser(mime);
    expect(parsed.subject).toBe('Grüße, Zoë — 50 % off 🎉');
    expect(parsed.from?.value[0]).toEqual({ name: 'Zoë Café', address: 'zoe@example.com' });
    expect(parsed.replyTo?.value[0]?.address).toBe('replies@example.com');
    expect(parsed.messageId).toBe('<abc@herald.test>');
    expect(parsed.headerLines.filter((h) => h.key === 'message-id')).toHaveLength(1);
    expect(parsed.headerLines.find((h) => h.key === 'list-unsubscribe-post')?.line).toBe(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    );
    expect(parsed.headerLines.find((h) => h.key === 'list-unsubscribe')?.line.replace(/\r\n /g, ' ')).toBe(
      'List-Unsubscribe: <https://herald.test/public/unsubscribe?token=abc>, <mailto:u@herald.test>',
    );
    expect(parsed.html).toBe('<p>Hi</p>');
    expect(parsed.text?.trim()).toBe('Hi');
  });

  it('encodes a display name holding a line or paragraph separator (U+2028, U+2029) as a name', async () => {
    // Found by the property below: `.` does not match these, so the name went out raw and "(" opened a comment.
    for (const name of ['(\u2028#', 'Ada\u2029Lovelace', '\u2028']) {
      const mime = toMime({ ...base, from: `${name} <ada@example.com>` });
      expect(mime).toMatch(/^From: [\x20-\x7e]+\r$/m);
      const parsed = await simpleParser(mime);
      expect(parsed.from?.value[0]).toEqual({ name: name.trim(), address: 'ada@example.com' });
    }
  });

  it('round-trips any subject, name, HTML and text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 120 }),
        fc
          .string({ unit: 'grapheme', maxLength: 40 })
          .filter((n) => !/["\\<>\r\n]/.test(n) && n.trim() === n),
        fc.string({ unit: 'grapheme', maxLength: 3000 }),
        fc.string({ unit: 'grapheme', maxLength: 3000 }),
        async (subject, name, html, text) => {
          const mime = toMime({
            ...base,
            subject,
            from: name ? `${name} <ada@example.com>` : 'ada@example.com',
            html: `<p>${html}</p>`,
            text: `${text}.`,
            headers: { 'X-Note': `.${subject}` },
          });
          // Ready for the wire as it is: CRLF only, and no line that SMTP would need to dot-stuff.
          expect(mime).not.toMatch(/(^|[^\r])\n/);
          expect(mime).not.toMatch(/(^|\n)\./);
          const parsed = await simpleParser(mime);
          expect((parsed.subject ?? '').trim()).toBe(subject.replace(/[\r\n]+/g, ' ').trim());
          expect(lf(parsed.html)).toBe(lf(`<p>${html}</p>`));
          expect(lf(parsed.text)).toBe(lf(`${text}.`));
          expect(parsed.from?.value[0]?.address).toBe('ada@example.com');
          if (name && name.trim()) expect(parsed.from?.value[0]?.name).toBe(name);
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);

  it('writes mostly-ASCII parts as quoted-printable that decodes to exactly the text given', async () => {
    // Dots, equals signs, spaces, tabs and line breaks where the encoder must take care, and now and then a non-ASCII letter.
    const mostlyAscii = fc.string({
      unit: fc.constantFrom('a', 'b', '.', '=', ' ', '\t', '\n', '\r', '<', '>', '"', 'é', '1', 'Z'),
      maxLength: 4000,
    });
    await fc.assert(
      fc.asyncProperty(mostlyAscii, mostlyAscii, async (html, text) => {
        const mime = toMime({ ...base, html: `<p>${html}</p>`, text: `${text}.` });
        expect(mime).not.toMatch(/(^|[^\r])\n/);
        expect(mime).not.toMatch(/(^|\n)\./);
        expect(mime.split('\r\n').every((line) => line.length <= 76)).toBe(true);
        const parsed = await simpleParser(mime);
        // A line break (CRLF, CR or LF) may come back as another kind (the parser's choice); the characters otherwise exactly.
        expect(lf(parsed.html)).toBe(lf(`<p>${html}</p>`));
        expect(lf(parsed.text)).toBe(lf(`${text}.`));
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it('chooses quoted-printable for an ordinary newsletter and base64 for text that is mostly not ASCII', () => {
    const newsletter = toMime({
      ...base,
      html: `<table style="width:600px">${'<tr><td class="body">Our engines now run faster. Read more at https://example.com/news.</td></tr>\n'.repeat(80)}</table>`,
      text: 'Hello there.',
    });
    expect(newsletter).toContain('Content-Transfer-Encoding: quoted-printable');
    expect(newsletter).not.toContain('Content-Transfer-Encoding: base64');
    const japanese = toMime({
      ...base,
      html: `<p>${'こんにちは、世界。'.repeat(40)}</p>`,
      text: 'こんにちは',
    });
    expect(japanese.match(/Content-Transfer-Encoding: base64/g)).toHaveLength(2);
  });
});
