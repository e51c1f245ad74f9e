import { describe, expect, it } from 'vitest';
import { SYNTHETIC_START, syntheticRecording } from '../history/recordingFileFixture.ts';
import { FRAME_CSV_HEADER, csvField, csvLine, frameRow } from './historyCsv.ts';

describe('CSV escaping (RFC 4180)', () => {
  it.each([
    [12.5, '12.5'],
    [null, ''],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
  ])('%j → %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('joins fields with commas and ends rows in CRLF', () => {
    expect(csvLine(['x', 'y,z', null, 3])).toBe('x,"y,z",,3\r\n');
  });
});

describe('CSV rows of frames', () => {
  it('has one cell per header column: ISO time, epoch ms, then the series', () => {
    const [frame] = syntheticRecording({ durationMs: 1_000 }).frames;
    if (frame === undefined) throw new Error('no frame');
    const row = frameRow(frame);
    expect(row).toHaveLength(FRAME_CSV_HEADER.length);
    expect(row.slice(0, 2)).toEqual([new Date(SYNTHETIC_START).toISOString(), SYNTHETIC_START]);
    expect(row.at(-1)).toBe(frame.sampleMs);
  });

  it('leaves a series empty when the frame could not tell (pg_aios unreadable)', () => {
    const [recorded] = syntheticRecording({ durationMs: 1_000 }).frames;
    if (recorded === undefined) throw new Error('no frame');
    const frame = {
      ...recorded,
      inflight: null,
      newReads: null,
      ioWorkers: [],
    };
    expect(frameRow(frame).slice(2, 8)).toEqual([null, null, null, null, null, null]);
  });
});
