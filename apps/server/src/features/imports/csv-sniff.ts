/** What the first bytes of a CSV tell: its encoding, its delimiter, whether it is text at all. */
export interface CsvShape {
  encoding: 'utf8' | 'latin1';
  delimiter: ',' | ';' | '\t';
  isBinary: boolean;
}

/** UTF-8 when the bytes decode as UTF-8 (a character cut at the end of the sample is fine), else Latin-1. */
export function detectEncoding(head: Buffer): 'utf8' | 'latin1' {
  try {
    // In stream mode an incomplete sequence at the very end is held back, not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return 'utf8';
  } catch {
    return 'latin1';
  }
}

/** The delimiter used most in the first line, counting only outside quotes. */
export function detectDelimiter(firstLine: string): ',' | ';' | '\t' {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const char of firstLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char in counts) counts[char as keyof typeof counts] += 1;
  }
  const best = (Object.entries(counts) as [keyof typeof counts, number][]).sort((a, b) => b[1] - a[1])[0]!;
  return best[1] === 0 ? ',' : best[0];
}

export function sniffCsv(head: Buffer): CsvShape {
  const isBinary = head.subarray(0, 8192).includes(0);
  const encoding = detectEncoding(head);
  const text = head.toString(encoding).replace(/^\uFEFF/, '');
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  return { encoding, delimiter: detectDelimiter(firstLine), isBinary };
}
