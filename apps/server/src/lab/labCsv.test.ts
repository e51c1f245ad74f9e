import { describe, expect, it } from 'vitest';
import { labRunsToCsv } from './labCsv.ts';
import { labRun as run } from '@aioscope/core/testing';

describe('the lab runs as CSV', () => {
  it('writes every run as CSV, quoting what needs it', () => {
    const csv = labRunsToCsv([run('with, comma "quoted"', 1, 1.5)]);
    const [header, row] = csv.trim().split('\r\n');
    expect(header?.split(',')).toContain('bytesPerRead');
    expect(row).toMatch(/^"with, comma ""quoted""",1,/);
  });

  it('writes the start as an ISO time and bytes per read to the byte, as a spreadsheet reads them', () => {
    const startedAt = Date.UTC(2026, 4, 17, 9, 30, 15, 250);
    const csv = labRunsToCsv([{ ...run('A', 1, 100, 130039.93700787402), startedAt }]);
    const [header, row] = csv.trim().split('\r\n');
    const cells = Object.fromEntries((header ?? '').split(',').map((name, i) => [name, row?.split(',')[i]]));
    expect(cells.startedAt).toBe('2026-05-17T09:30:15.250Z');
    expect(cells.bytesPerRead).toBe('130040');
    expect(
      labRunsToCsv([run('A', 1, 100, null)])
        .trim()
        .split('\r\n')[1]
        ?.endsWith(','),
    ).toBe(true);
  });
});
