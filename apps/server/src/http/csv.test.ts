import { describe, expect, it } from 'vitest';
import { csvRow, csvRows } from './csv.ts';

describe('CSV (RFC 4180)', () => {
  it.each([
    [12.5, '12.5'],
    [null, ''],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['', ''],
  ])('%j → %j', (value, expected) => {
    expect(csvRow([value])).toBe(`${expected}\r\n`);
  });

  it('joins fields with commas and ends rows in CRLF', () => {
    expect(csvRow(['x', 'y,z', null, 3])).toBe('x,"y,z",,3\r\n');
    expect(csvRows([['a'], ['b', 1]])).toBe('a\r\nb,1\r\n');
  });

  it('writes nothing for no rows', () => {
    expect(csvRows([])).toBe('');
  });
});
