import { CsvError } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { invalid } from '../../../errors.js';

/** Most data rows one upload may hold (reference: 400 past 5,000). */
export const MAX_ROWS = 5_000;

export interface CsvRow {
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
export function detectDelimiter(text: string): string {
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

/**
 * Parses an uploaded CSV (already decoded from UTF-8): a byte order mark, quoted fields with embedded
 * separators, quotes and newlines, CRLF or LF, and `,` `;` or tab separators. A file the parser cannot
 * read is a 400 `invalid_csv` naming the line; rows whose cells are all empty are skipped but keep
 * their number; more than MAX_ROWS data rows is a 400 `too_many_rows`. A row with the wrong number of
 * cells is left to the caller (it fails alone).
 */
export function parseCsv(text: string): CsvTable {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const delimiter = detectDelimiter(body);
  let records: string[][];
  try {
    records = parse(body, {
      delimiter,
      bom: true,
      // Any line ending, even mixed in one file (rows pasted from elsewhere).
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      // A quote inside an unquoted cell (`He said "hi"`) is kept as text, the way spreadsheets read it.
      relax_quotes: true,
      skip_empty_lines: false,
      // One cell past 1 MiB is not a post: stop reading rather than buffer the rest of the file into it.
      max_record_size: 1 << 20,
    }) as string[][];
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      throw invalid('invalid_csv', `The file is not valid CSV${line ? ` (line ${line})` : ''}: ${error.message}`, line ? { line } : {});
    }
    throw error;
  }
  const [header, ...data] = records;
  if (!header || header.every((h) => h.trim() === '')) throw invalid('csv_empty', 'The file is empty: its first line must name the columns');
  const rows: CsvRow[] = [];
  data.forEach((cells, i) => {
    if (cells.every((c) => c.trim() === '')) return;
    rows.push({ row: i + 1, cells });
  });
  if (rows.length === 0) throw invalid('csv_empty', 'The file has a header but no data rows');
  if (rows.length > MAX_ROWS) {
    throw invalid('too_many_rows', `The file has ${rows.length} rows; at most ${MAX_ROWS} are accepted in one upload`, { limit: MAX_ROWS, rows: rows.length });
  }
  return { header, delimiter, rows };
}
