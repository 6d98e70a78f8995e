import { compile } from 'html-to-text';

const convert = compile({
  wordwrap: 78,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'head', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    {
      selector: 'a',
      options: { hideLinkHrefIfSameAsText: true, ignoreHref: false, linkBrackets: ['<', '>'] },
    },
  ],
});

/** Liquid survives the conversion as tokens without spaces, so wrapping and entity decoding leave it whole. */
const liquidToken = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;

/** The plain-text template of an HTML template: text with the same merge tags, which the text engine renders unescaped. */
export function textTemplateOf(html: string): string {
  const tags: string[] = [];
  const protectedHtml = html.replace(liquidToken, (tag) => `HERALDTAG${tags.push(tag) - 1}Z`);
  const text = convert(protectedHtml);
  return text.replace(/HERALDTAG(\d+)Z/g, (_, index: string) => tags[Number(index)] ?? '');
}
