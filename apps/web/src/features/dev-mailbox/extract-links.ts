const urlPattern = /https?:\/\/[^\s"'<>()[\]{}]+/gi;
const hrefPattern = /href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;

function decodeEntities(value: string): string {
  return value
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

function trimTrailingPunctuation(url: string): string {
  return url.replace(/[.,;:!?]+$/, '');
}

/** Every distinct http(s) link found in a message's text and HTML, in order of appearance. */
export function extractLinks(text: string, html: string | null): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(urlPattern)) found.push(trimTrailingPunctuation(match[0]));
  if (html) {
    for (const match of html.matchAll(hrefPattern)) {
      const href = decodeEntities((match[1] ?? match[2] ?? match[3] ?? '').trim());
      if (/^https?:\/\//i.test(href)) found.push(href);
    }
    for (const match of decodeEntities(html.replace(/<[^>]*>/g, ' ')).matchAll(urlPattern)) {
      found.push(trimTrailingPunctuation(match[0]));
    }
  }
  return [...new Set(found)];
}
