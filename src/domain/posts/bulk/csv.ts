import { invalid } from '../../../errors.js';

/** Most data rows one upload may hold (reference: 400 past 5,000). */
export const MAX_ROWS = 5_000;

/**
 * Most lines one upload may hold, blank ones included. A spreadsheet's export pads a sheet with a few
 * empty rows; a file of a million empty lines is not a sheet, and is refused as soon as it is seen.
 */
export const MAX_LINES = 4 * MAX_ROWS;

/** Longest record (characters): one cell past 1 MiB is not a post. */
export const MAX_RECORD_CHARS = 1 << 20;

/** Characters read between two yields to the event loop, so a 16 MB file never holds the process. */
const SLICE_CHARS = 256 * 1024;

interface CsvRow {
  /** 1-based number of the data row: the header is row 0, so a spreadsheet shows it on line `row + 1`. */
  row: number;
  cells: string[];
}

export interface CsvTable {
  header: string[];
  delimiter: string;
  rows: CsvRow[];
}

const DELIMITERS = [',', ';', '\t'] as const;

/**
 * The separator of the header line: the one of `,` `;` and tab it holds most often outside quotes
 * (spreadsheets set to a locale with a decimal comma export `;`). Column names hold none of them.
 */
function detectDelimiter(text: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best: string = ',';
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

const notCsv = (line: number, reason: string) =>
  invalid('invalid_csv', `The file is not valid CSV (line ${line}): ${reason}`, { line });

/**
 * Parses an uploaded CSV (already decoded from UTF-8): a byte order mark, quoted fields with embedded
 * separators, quotes (`""`) and newlines, CRLF, LF or CR (mixed in one file too), and `,` `;` or tab
 * separators. A quote inside an unquoted cell (`He said "hi"`) is text, the way spreadsheets read it.
 *
 * The file is read in slices that yield to the event loop, and the limits apply as records arrive: more
 * than MAX_ROWS data rows is a 400 `too_many_rows`, more than MAX_LINES lines a 400 `too_many_lines`,
 * a record past MAX_RECORD_CHARS or a file the parser cannot read a 400 `invalid_csv` naming the line.
 * A blank line costs a few comparisons; rows whose cells are all empty are skipped but keep their
 * number. A row with the wrong number of cells is left to the caller (it fails alone).
 */
export async function parseCsv(text: string): Promise<CsvTable> {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const delimiter = detectDelimiter(start ? text.slice(1) : text);
  const delim = delimiter.charCodeAt(0);
  const n = text.length;

  let header: string[] | null = null;
  const rows: CsvRow[] = [];
  let records = 0;
  let line = 1;
  let cells: string[] = [];
  let recordStart = start;
  let blank = true;

  const endRecord = (): void => {
    records++;
    if (records > MAX_LINES) {
      throw invalid(
        'too_many_lines',
        `The file has more than ${MAX_LINES} lines; at most ${MAX_ROWS} rows are accepted in one upload`,
        { limit: MAX_LINES },
      );
    }
    if (header === null) header = cells;
    else if (!blank) {
      rows.push({ row: records - 1, cells });
      if (rows.length > MAX_ROWS) {
        throw invalid(
          'too_many_rows',
          `The file has more than ${MAX_ROWS} rows; at most ${MAX_ROWS} are accepted in one upload`,
          { limit: MAX_ROWS },
        );
      }
    }
    cells = [];
    blank = true;
  };

  let i = start;
  let nextYield = i + SLICE_CHARS;
  while (i < n) {
    if (i >= nextYield) {
      await new Promise((resolve) => setImmediate(resolve));
      nextYield = i + SLICE_CHARS;
    }
    recordStart = cells.length === 0 ? i : recordStart;
    let c = text.charCodeAt(i);
    // A blank line: the cheapest path, no cell is made.
    if (cells.length === 0 && (c === LF || c === CR)) {
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      cells.push('');
      endRecord();
      line++;
      continue;
    }
    // One cell, from i to the separator or line end after it.
    let value: string;
    if (c === QUOTE) {
      const opened = line;
      let j = i + 1;
      let parts = '';
      let from = j;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q === -1) throw notCsv(opened, 'a quoted cell is never closed');
        for (let k = text.indexOf('\n', j); k !== -1 && k < q; k = text.indexOf('\n', k + 1)) line++;
        if (text.charCodeAt(q + 1) === QUOTE) {
          parts += text.slice(from, q + 1);
          j = from = q + 2;
          continue;
        }
        value = parts + text.slice(from, q);
        i = q + 1;
        break;
      }
      c = i < n ? text.charCodeAt(i) : -1;
      if (c !== -1 && c !== delim && c !== LF && c !== CR)
        throw notCsv(line, 'a quoted cell is followed by text before the next separator');
    } else {
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === delim || d === LF || d === CR) break;
        j++;
      }
      value = text.slice(i, j);
      i = j;
      c = i < n ? text.charCodeAt(i) : -1;
    }
    if (i - recordStart > MAX_RECORD_CHARS) throw notCsv(line, `a row is longer than ${MAX_RECORD_CHARS} characters`);
    cells.push(value);
    if (blank && value.trim() !== '') blank = false;
    if (c === delim) {
      i++;
      // A separator at the very end of the file still closes an empty last cell.
      if (i >= n) {
        cells.push('');
        endRecord();
      }
      continue;
    }
    if (c === CR || c === LF) i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    endRecord();
    line++;
  }

  const head = header as string[] | null;
  if (!head || head.every((h) => h.trim() === ''))
    throw invalid('csv_empty', 'The file is empty: its first line must name the columns');
  if (rows.length === 0) throw invalid('csv_empty', 'The file has a header but no data rows');
  return { header: head, delimiter, rows };
}
