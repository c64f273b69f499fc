import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readHeader } from '../../src/domain/posts/bulk/columns.js';
import { parseCsv } from '../../src/domain/posts/bulk/csv.js';

describe('the example bulk upload file (examples/bulk-upload.csv)', () => {
  it("reads as a spreadsheet's export: BOM, `;` separators, a quoted cell with a line break, every column known", () => {
    const table = parseCsv(fs.readFileSync(new URL('../../examples/bulk-upload.csv', import.meta.url), 'utf8'));
    expect(table.delimiter).toBe(';');
    expect(table.header[0]).toBe('post_content');
    expect(table.rows.map((r) => r.row)).toEqual([1, 2, 3, 4]);
    expect(table.rows[0].cells[0]).toBe('Spring sale starts today; everything 20% off.\nSee you there!');
    expect(table.rows[1].cells[0]).toBe('Behind the scenes, "part 2"');
    expect(() => readHeader(table.header)).not.toThrow();
  });
});
