import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvReader, csvReaderMessages, type CsvRecord } from '../src/features/imports/csv-reader.ts';

/** Read `text` cut into pieces at every given offset, as a stream would deliver it. */
function read(text: string, cuts: number[] = [], delimiter = ',', maxCell = 1000): CsvRecord[] {
  const records: CsvRecord[] = [];
  const reader = new CsvReader(delimiter.charCodeAt(0), maxCell, (r) => records.push(r));
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    reader.write(text.slice(from, cut));
    from = cut;
  }
  reader.end();
  return records;
}

const cells = (records: CsvRecord[]) => records.map((r) => r.cells);

describe('CSV reader', () => {
  it('reads quoted delimiters, doubled quotes, line breaks in quotes, CRLF, CR and a missing last line break', () => {
    const text = 'a,b,c\r\n"x, y","say ""hi""","two\nlines"\rplain,"",end';
    expect(cells(read(text))).toEqual([
      ['a', 'b', 'c'],
      ['x, y', 'say "hi"', 'two\nlines'],
      ['plain', '', 'end'],
    ]);
  });

  it('gives the same records wherever the chunks are cut', () => {
    const text = 'e,n\r\n"a""b","c\r\nd"\r\ne,""""\r\n\r\nf,g,\n';
    const whole = read(text);
    expect(cells(whole)).toEqual([
      ['e', 'n'],
      ['a"b', 'c\r\nd'],
      ['e', '"'],
      ['f', 'g', ''],
    ]);
    for (let cut = 1; cut < text.length; cut += 1) expect(read(text, [cut])).toEqual(whole);
    expect(
      read(
        text,
        Array.from({ length: text.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(whole);
  });

  it('keeps a quote inside an unquoted cell as text, skips empty lines, ends on a trailing delimiter', () => {
    expect(cells(read('a"b,5" screen\n\n\nlast,\n'))).toEqual([
      ['a"b', '5" screen'],
      ['last', ''],
    ]);
    expect(cells(read('only,'))).toEqual([['only', '']]);
    expect(read('')).toEqual([]);
  });

  it('reads other delimiters', () => {
    expect(cells(read('a;b\t c\n"1;2";3', [], ';'))).toEqual([
      ['a', 'b\t c'],
      ['1;2', '3'],
    ]);
  });

  it('marks broken records and goes on with the next ones', () => {
    const records = read('"ok","bad"x,1\ngood,2\n"never closed,3\nmore');
    expect(records).toEqual([
      { cells: ['ok', 'bad', '1'], error: csvReaderMessages.textAfterQuote },
      { cells: ['good', '2'], error: null },
      { cells: ['never closed,3\nmore'], error: csvReaderMessages.unclosedQuote },
    ]);
  });

  it('keeps no cell longer than its limit, whole or cut into chunks, and marks its record', () => {
    const long = 'x'.repeat(2500);
    for (const cuts of [[], [700, 1400, 2100]]) {
      const records = read(`a,${long},b\nnext,1\n`, cuts);
      expect(records[0]!.error).toBe(csvReaderMessages.cellTooLong(1000));
      expect(records[0]!.cells[1]!.length).toBeLessThanOrEqual(1000);
      expect(records[1]).toEqual({ cells: ['next', '1'], error: null });
    }
  });

  it('reads back any records written with quoting, in any delimiter and line ending, wherever the chunks are cut', () => {
    const cell = fc.string({
      unit: fc.constantFrom('a', 'Z', '7', ' ', 'é', '😀', ',', ';', '\t', '"', '\n', '\r'),
      maxLength: 12,
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { maxLength: 8 }),
        fc.constantFrom(',', ';', '\t'),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (records, delimiter, eol, lastEol, rawCuts) => {
          const special = new RegExp(`["\r\n${delimiter === '\t' ? '\\t' : delimiter}]`);
          const write = (value: string) =>
            value === '' || special.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
          const text =
            records.map((r) => r.map(write).join(delimiter)).join(eol) +
            (lastEol && records.length > 0 ? eol : '');
          const cuts = [...new Set(rawCuts.map((c) => (text.length === 0 ? 0 : c % text.length)))].sort(
            (a, b) => a - b,
          );
          expect(read(text, cuts, delimiter)).toEqual(records.map((r) => ({ cells: r, error: null })));
        },
      ),
      { numRuns: 500 },
    );
  });
});
