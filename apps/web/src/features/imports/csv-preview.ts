/** What the browser reads of a CSV before uploading it: the header, a few rows and the row count. */

export type CsvDelimiter = ',' | ';' | '\t';

export interface CsvPreview {
  delimiter: CsvDelimiter;
  header: string[];
  /** The first rows after the header (at most `previewRows`). */
  rows: string[][];
}

/** Bytes read for the header and preview. */
export const previewBytes = 64 * 1024;
export const previewRows = 5;

/** UTF-8 when the bytes decode as UTF-8 (a character cut at the end is fine), else Latin-1 — as the server does. */
export function decodeHead(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
  } catch {
    text = new TextDecoder('latin1').decode(bytes);
  }
  return text.replace(/^\uFEFF/, '');
}

/** The delimiter used most in the first line, counting only outside quotes (the server's rule). */
export function detectDelimiter(text: string): CsvDelimiter {
  const counts: Record<CsvDelimiter, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char in counts) counts[char as CsvDelimiter] += 1;
  }
  const best = (Object.entries(counts) as [CsvDelimiter, number][]).sort((a, b) => b[1] - a[1])[0]!;
  return best[1] === 0 ? ',' : best[0];
}

/**
 * Split CSV text into records (RFC 4180 quotes, "" inside quotes, CRLF or LF). Empty lines are
 * skipped. When `isPartial`, the last record may be cut off by the read limit and is dropped.
 */
export function parseCsv(
  text: string,
  delimiter: CsvDelimiter,
  maxRecords: number,
  isPartial = false,
): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    record.push(cell);
    cell = '';
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
  };
  while (i < text.length && records.length < maxRecords) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 1;
        } else quoted = false;
      } else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === delimiter) {
      record.push(cell);
      cell = '';
    } else if (char === '\n') endRecord();
    else if (char === '\r') {
      if (text[i + 1] !== '\n') endRecord();
    } else cell += char;
    i += 1;
  }
  if (records.length < maxRecords && !isPartial && (cell !== '' || record.length > 0)) endRecord();
  return records;
}

/** Header and preview from the first `previewBytes` of the file. */
export async function readPreview(file: Blob): Promise<CsvPreview> {
  const head = new Uint8Array(await file.slice(0, previewBytes).arrayBuffer());
  const text = decodeHead(head);
  const delimiter = detectDelimiter(text);
  const [header = [], ...rows] = parseCsv(text, delimiter, previewRows + 1, file.size > previewBytes);
  return { delimiter, header: header.map((h) => h.trim()), rows };
}

const quote = 0x22;
const newline = 0x0a;
const carriageReturn = 0x0d;

/**
 * Counts the data rows of the whole file by streaming it: line breaks outside quotes that end a
 * non-empty line, less the header. Works on bytes, since '"' and '\n' never occur inside a UTF-8
 * multi-byte character.
 */
export async function countRows(
  file: Blob,
  options: { signal?: AbortSignal; onProgress?: (fraction: number) => void } = {},
): Promise<number> {
  const reader = file.stream().getReader();
  let quoted = false;
  let lineLength = 0;
  let records = 0;
  let read = 0;
  try {
    for (;;) {
      if (options.signal?.aborted) throw new DOMException('Counting stopped', 'AbortError');
      const { done, value } = await reader.read();
      if (done) break;
      for (let i = 0; i < value.length; i += 1) {
        const byte = value[i]!;
        if (byte === quote) {
          quoted = !quoted;
          lineLength += 1;
        } else if (byte === newline && !quoted) {
          if (lineLength > 0) records += 1;
          lineLength = 0;
        } else if (byte !== carriageReturn || quoted) lineLength += 1;
      }
      read += value.length;
      options.onProgress?.(file.size ? read / file.size : 1);
    }
  } finally {
    reader.releaseLock();
  }
  if (lineLength > 0) records += 1;
  return Math.max(0, records - 1);
}
