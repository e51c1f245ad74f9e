import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingLineSchema } from '@aioscope/spec';
import { syntheticRecording } from './recordingFileFixture.ts';
import { FAST_CHECKED_KINDS, fastCheckOf, isCertainlyValidLine } from './recordingLineCheck.ts';

const recording = syntheticRecording({ durationMs: 20_000, rateHz: 100 });
const frameWithScans = recording.frames.find((frame) => (frame.scans?.length ?? 0) > 0);
const frameWithProcesses = recording.frames.find((frame) => Object.keys(frame.byProcess).length > 0);
const samples = [
  ...[frameWithScans, frameWithProcesses, recording.frames[0]].map((v) => ({ k: 'frame', v })),
  { k: 'ioDelta', v: recording.ioDeltas[0] },
  { k: 'processes', v: recording.processes.find((p) => p.processes.length > 0) },
  { k: 'event', v: recording.events[1] },
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const REPLACEMENTS: Json[] = [null, 'x', 1, -0.5, true, {}, [], [1, 2]];

/** The line with every value somewhere inside it replaced, removed or given a sibling, one at a time. */
function* mutations(value: Json): Generator<unknown> {
  for (const replacement of REPLACEMENTS) yield replacement;
  yield JSON.parse('1e999'); // what JSON.parse makes of a number too large: Infinity
  if (Array.isArray(value)) {
    yield [...value, value[0] ?? 1];
    yield value.slice(1);
    for (const [index, item] of value.entries())
      for (const changed of mutations(item)) yield value.map((old, at) => (at === index ? changed : old));
  } else if (typeof value === 'object' && value !== null) {
    yield { ...value, extra: 1 };
    yield { ...value, '007': 1, '1.50': 2, '-0': 3 };
    yield JSON.parse(JSON.stringify(value).replace(/^\{/, '{"__proto__":1,').replace(/,}$/, '}'));
    for (const key of Object.keys(value)) {
      const { [key]: removed, ...rest } = value;
      yield rest;
      if (removed === undefined) continue;
      for (const changed of mutations(removed)) yield { ...value, [key]: changed };
    }
  }
}

describe('the fast check of recording lines', () => {
  it('covers the record kinds an hour is made of, and passes every line the writer writes', () => {
    expect(FAST_CHECKED_KINDS).toEqual(expect.arrayContaining(['frame', 'ioDelta', 'processes', 'event']));
    expect(frameWithScans).toBeDefined();
    expect(frameWithProcesses).toBeDefined();
    const lines = [
      ...recording.frames.map((v) => ({ k: 'frame', v })),
      ...recording.ioDeltas.map((v) => ({ k: 'ioDelta', v })),
      ...recording.processes.map((v) => ({ k: 'processes', v })),
      ...recording.events.map((v) => ({ k: 'event', v })),
    ];
    for (const line of lines) expect(isCertainlyValidLine(JSON.parse(JSON.stringify(line)))).toBe(true);
  });

  it('vouches only for what zod accepts and returns unchanged, over every one-place edit of each kind', () => {
    let vouched = 0;
    let deferred = 0;
    for (const sample of samples) {
      for (const edited of mutations(JSON.parse(JSON.stringify(sample)) as Json)) {
        if (!isCertainlyValidLine(edited)) {
          deferred++;
          continue;
        }
        vouched++;
        const parsed = recordingLineSchema.safeParse(edited);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(edited);
      }
    }
    // Both answers occur: removing an optional field or setting a nullable one to null stays valid.
    expect(vouched).toBeGreaterThan(50);
    expect(deferred).toBeGreaterThan(1_000);
  });

  it('leaves to zod a numeric record key that zod rewrites, and a key zod skips', () => {
    const schema = z.record(z.number(), z.number());
    const check = fastCheckOf(schema);
    expect(check?.({ '20674': 1, '1.5': 2 })).toBe(true);
    for (const value of [{ '007': 1 }, { '1.50': 1 }, { '-0': 1 }, JSON.parse('{"__proto__":1}') as unknown]) {
      expect(check?.(value)).toBe(false);
      expect(schema.safeParse(value).data).not.toStrictEqual(value);
    }
  });

  it('has no check for constructs it does not know, so zod keeps deciding those', () => {
    expect(fastCheckOf(z.number().int())).toBeNull();
    expect(fastCheckOf(z.strictObject({ a: z.string() }))).toBeNull();
    expect(fastCheckOf(z.object({ a: z.string().min(1) }))).toBeNull();
    expect(fastCheckOf(z.object({ a: z.string().default('x') }))).toBeNull();
    expect(fastCheckOf(z.string().transform((text) => text.length))).toBeNull();
    expect(fastCheckOf(z.record(z.enum(['a', 'b']), z.number()))).toBeNull();
  });
});
