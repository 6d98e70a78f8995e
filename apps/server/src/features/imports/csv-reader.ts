/** One record of a CSV file: its cells, or why it cannot be read (the record is still delimited). */
export interface CsvRecord {
  cells: string[];
  error: string | null;
}

export const csvReaderMessages = {
  unclosedQuote: 'A quoted value is not closed before the end of the file.',
  textAfterQuote: 'A quoted value is followed by other text before the next delimiter.',
  cellTooLong: (max: number) => `A value is longer than ${max} characters.`,
} as const;

const quote = 34;
const lf = 10;
const cr = 13;

const enum State {
  CellStart,
  Unquoted,
  Quoted,
  QuoteInQuoted,
  AfterQuoted,
}

/**
 * A streaming CSV reader (RFC 4180 plus the leniencies real exports need): quoted cells may hold
 * delimiters, doubled quotes and line breaks; a quote inside an unquoted cell is kept as text; CRLF,
 * LF and CR end records; empty lines are skipped. It scans each decoded chunk once without per-character
 * allocation, which is several times faster than a general-purpose parser on large files. A cell longer
 * than `maxCell` is not kept whole (memory stays bounded on a broken file); its record gets an error.
 */
export class CsvReader {
  private cells: string[] = [];
  private cell = '';
  private state = State.CellStart;
  private skipLf = false;
  private sawQuote = false;
  private error: string | null = null;

  constructor(
    private readonly delimiter: number,
    private readonly maxCell: number,
    private readonly onRecord: (record: CsvRecord) => void,
  ) {}

  /** Read a chunk of text; complete records go to `onRecord` before this returns. */
  write(text: string): void {
    const n = text.length;
    const delimiter = this.delimiter;
    let i = 0;
    if (this.skipLf && n > 0) {
      this.skipLf = false;
      if (text.charCodeAt(0) === lf) i = 1;
    }
    while (i < n) {
      switch (this.state) {
        case State.CellStart:
        case State.Unquoted: {
          if (this.state === State.CellStart && text.charCodeAt(i) === quote) {
            this.state = State.Quoted;
            this.sawQuote = true;
            i += 1;
            break;
          }
          const start = i;
          let c = 0;
          while (i < n) {
            c = text.charCodeAt(i);
            if (c === delimiter || c === lf || c === cr) break;
            i += 1;
          }
          this.append(text, start, i);
          if (i === n) {
            this.state = State.Unquoted;
            break;
          }
          i = this.endCell(text, i, c);
          break;
        }
        case State.Quoted: {
          const q = text.indexOf('"', i);
          if (q < 0) {
            this.append(text, i, n);
            i = n;
          } else {
            this.append(text, i, q);
            this.state = State.QuoteInQuoted;
            i = q + 1;
          }
          break;
        }
        case State.QuoteInQuoted: {
          const c = text.charCodeAt(i);
          if (c === quote) {
            this.append(text, i, i + 1);
            this.state = State.Quoted;
            i += 1;
          } else if (c === delimiter || c === lf || c === cr) {
            i = this.endCell(text, i, c);
          } else {
            this.error ??= csvReaderMessages.textAfterQuote;
            this.state = State.AfterQuoted;
          }
          break;
        }
        case State.AfterQuoted: {
          const c = text.charCodeAt(i);
          if (c === delimiter || c === lf || c === cr) i = this.endCell(text, i, c);
          else i += 1;
          break;
        }
      }
    }
  }

  /** The end of the file: the last record, if any. */
  end(): void {
    if (this.state === State.Quoted) this.error ??= csvReaderMessages.unclosedQuote;
    if (this.state === State.CellStart && this.cells.length === 0) return;
    // A delimiter right before the end of the file leaves one more, empty, cell.
    if (this.state === State.CellStart) this.cells.push('');
    this.endRecord();
  }

  private append(text: string, from: number, to: number) {
    if (from === to) return;
    if (this.cell.length + (to - from) > this.maxCell) {
      this.error ??= csvReaderMessages.cellTooLong(this.maxCell);
      return;
    }
    this.cell = this.cell.length === 0 ? text.slice(from, to) : this.cell + text.slice(from, to);
  }

  /** At a delimiter or line break `c` (at index i) outside quotes: close the cell, maybe the record. */
  private endCell(text: string, i: number, c: number): number {
    this.cells.push(this.cell);
    this.cell = '';
    this.state = State.CellStart;
    if (c === this.delimiter) return i + 1;
    this.endRecord();
    if (c === cr) {
      if (i + 1 < text.length) return text.charCodeAt(i + 1) === lf ? i + 2 : i + 1;
      this.skipLf = true;
    }
    return i + 1;
  }

  private endRecord() {
    if (this.state !== State.CellStart) {
      this.cells.push(this.cell);
      this.cell = '';
      this.state = State.CellStart;
    }
    const cells = this.cells;
    const empty = cells.length === 1 && cells[0] === '' && !this.sawQuote;
    const error = this.error;
    this.cells = [];
    this.error = null;
    this.sawQuote = false;
    if (!empty) this.onRecord({ cells, error });
  }
}
