import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readHeader } from '../../src/domain/posts/bulk/columns.js';
import { MAX_LINES, MAX_RECORD_CHARS, MAX_ROWS, parseCsv } from '../../src/domain/posts/bulk/csv.js';

describe('the example bulk upload file (examples/bulk-upload.csv)', () => {
  it("reads as a spreadsheet's export: BOM, `;` separators, a quoted cell with a line break, every column known", async () => {
    const table = await parseCsv(fs.readFileSync(new URL('../../examples/bulk-upload.csv', import.meta.url), 'utf8'));
    expect(table.delimiter).toBe(';');
    expect(table.header[0]).toBe('post_content');
    expect(table.rows.map((r) => r.row)).toEqual([1, 2, 3, 4]);
    expect(table.rows[0].cells[0]).toBe('Spring sale starts today; everything 20% off.\nSee you there!');
    expect(table.rows[1].cells[0]).toBe('Behind the scenes, "part 2"');
    expect(() => readHeader(table.header)).not.toThrow();
  });
});

describe('parseCsv on hostile files', () => {
  const head = 'post_content,accounts,is_draft\n';

  it('refuses a header followed by 1,000,000 empty lines as too_many_lines', async () => {
    await expect(parseCsv(head + '\n'.repeat(1_000_000))).rejects.toMatchObject({
      code: 'too_many_lines',
      details: { limit: MAX_LINES },
    });
  });

  it('refuses a file past the row limit while reading it, and keeps blank lines in the numbering', async () => {
    await expect(parseCsv(head + 'x,a,false\n'.repeat(MAX_ROWS + 1))).rejects.toMatchObject({
      code: 'too_many_rows',
      details: { limit: MAX_ROWS },
    });
    const table = await parseCsv(head + '\n,,\r\nx,a,false\r\n\n');
    expect(table.rows).toEqual([{ row: 3, cells: ['x', 'a', 'false'] }]);
  });

  it('lets other callbacks run while it reads a large file', async () => {
    // 5,000 rows of 3 KB: about 15 MB, just under the upload limit.
    const text =
      head +
      `"a ""quoted"", cell\nwith a line${'.'.repeat(3000)}",acc,false\n`.repeat(MAX_ROWS) +
      '\n'.repeat(MAX_LINES - MAX_ROWS - 1);
    let ticks = 0;
    const tick = () => {
      ticks++;
      if (!done) setImmediate(tick);
    };
    let done = false;
    setImmediate(tick);
    const table = await parseCsv(text);
    done = true;
    expect(table.rows).toHaveLength(MAX_ROWS);
    expect(ticks).toBeGreaterThan(0);
  });

  it('reads cells the way the spreadsheet wrote them', async () => {
    const table = await parseCsv('a;b;c\r1;"x;""y""\r\nz";He said "hi"\r2;;\n"3"\n4;5;');
    expect(table.delimiter).toBe(';');
    expect(table.rows).toEqual([
      { row: 1, cells: ['1', 'x;"y"\r\nz', 'He said "hi"'] },
      { row: 2, cells: ['2', '', ''] },
      { row: 3, cells: ['3'] },
      { row: 4, cells: ['4', '5', ''] },
    ]);
    await expect(parseCsv('a,b\n1,"open\n2,3\n')).rejects.toMatchObject({ code: 'invalid_csv', details: { line: 2 } });
    await expect(parseCsv('a,b\n"1"x,2\n')).rejects.toMatchObject({ code: 'invalid_csv', details: { line: 2 } });
    await expect(parseCsv(`a\n${'x'.repeat(MAX_RECORD_CHARS + 1)}\n`)).rejects.toMatchObject({ code: 'invalid_csv' });
  });
});
