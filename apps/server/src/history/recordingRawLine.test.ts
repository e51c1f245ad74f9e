import { describe, expect, it } from 'vitest';
import { syntheticRecording } from './recordingFileFixture.ts';
import { rawSampleOf, sliceValue } from './recordingRawLine.ts';

const source = syntheticRecording({ durationMs: 2_000 });
const withScans = source.frames.find((frame) => frame.scans !== undefined);
const withoutScans = source.frames.find((frame) => frame.scans === undefined);
const delta = source.ioDeltas[0];
if (withScans === undefined || withoutScans === undefined || delta === undefined) {
  throw new Error('the fixture lacks a frame with and one without a scan map, or a delta');
}
const line = (k: string, v: unknown): Buffer => Buffer.from(JSON.stringify({ k, v }));

describe('rawSampleOf', () => {
  it("reads kind, time, scan map and body off a line in the writer's layout", () => {
    const sample = rawSampleOf(line('frame', withScans));
    expect(sample).toMatchObject({ kind: 'frame', t: withScans.t, hasScans: true });
    expect(JSON.parse(sample?.body.toString('utf8') ?? '')).toEqual(withScans);
    expect(rawSampleOf(line('frame', withoutScans))).toMatchObject({ hasScans: false });
    expect(rawSampleOf(line('ioDelta', delta))).toMatchObject({ kind: 'ioDelta', t: delta.t, hasScans: false });
  });

  it('leaves any other layout to the parser: another key order, kind, extra key, a time JSON would not write', () => {
    const { t, ...rest } = withScans;
    expect(rawSampleOf(line('frame', { ...rest, t }))).toBeNull();
    expect(rawSampleOf(line('event', source.events[0]))).toBeNull();
    expect(rawSampleOf(Buffer.from(`${line('frame', withScans).toString().slice(0, -1)},"x":1}`))).toBeNull();
    for (const time of ['0x1f', '"1"', ' 1', '', '1e', 'Infinity']) {
      expect(rawSampleOf(Buffer.from(`{"k":"frame","v":{"t":${time},"sampleMs":1}}`))).toBeNull();
    }
    expect(rawSampleOf(Buffer.from('{"k":"frame","v":{"t":1.5e3,"sampleMs":1}}'))).toMatchObject({ t: 1500 });
  });

  it('leaves a line that is not UTF-8 to the parser, which decodes it as text', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"k":"frame","v":{"t":1,"x":"'),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    expect(rawSampleOf(bytes)).toBeNull();
  });
});

describe('sliceValue', () => {
  it('slices v out of a checked line, or answers null for another layout', () => {
    expect(sliceValue('ioDelta', line('ioDelta', delta))?.toString()).toBe(JSON.stringify(delta));
    expect(sliceValue('frame', line('ioDelta', delta))).toBeNull();
    expect(sliceValue('ioDelta', Buffer.from(`{"v":${JSON.stringify(delta)},"k":"ioDelta"}`))).toBeNull();
  });
});
