/**
 * What the browser pays to parse what it receives: `frame` events (20-100 Hz) and one snapshot on
 * join, with the spec schemas, on frames built from the recorded servers (packages/core/fixtures).
 * Standalone: `npx tsx bench/parseCost.ts`. Prints µs per frame and ms per snapshot.
 *
 * Two modes. "jitless" is what the dashboard gets: its CSP has no 'unsafe-eval', so zod cannot
 * compile its object parsers and interprets them. "jit" is zod's compiled path (node, for scale).
 */
import { frameEventSchema, liveSnapshotSchema } from '@aioscope/spec';
import { buildPayloads, overTheWire, recordedServers } from '@aioscope/core/testing';
import { median } from './lib/stats.ts';

/** The snapshot a viewer gets on joining (SNAPSHOT_MAX_FRAMES in apps/server/src/live/liveHub.ts). */
const SNAPSHOT_FRAMES = 1_200;
const ROUNDS = 15;
const FRAMES_PER_ROUND = 20_000;

const payloads = recordedServers().map((server) => buildPayloads(server));
const frames = payloads.flatMap((payload) => payload.frames);
const wireEvents = frames.map((frame) => overTheWire({ targetId: 'recorded', frame }));
const texts = wireEvents.map((event) => JSON.stringify(event));
const withScans = wireEvents.filter((_, index) => frames[index]?.scans !== undefined);
const base = payloads[1] ?? payloads[0];
if (base === undefined) throw new Error('no recordings');
const snapshot = overTheWire({
  ...base.snapshot,
  frames: Array.from({ length: SNAPSHOT_FRAMES }, (_, index) => frames[index % frames.length]),
});
const snapshotBytes = JSON.stringify(snapshot).length;

function perItemMicros(items: readonly unknown[], run: (item: unknown) => void): number {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < FRAMES_PER_ROUND; i++) run(items[i % items.length]);
    rounds.push(((performance.now() - started) * 1000) / FRAMES_PER_ROUND);
  }
  return median(rounds);
}

function snapshotMillis(jitless: boolean): number {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    if (!liveSnapshotSchema.safeParse(snapshot, { jitless }).success) throw new Error('snapshot does not parse');
    rounds.push(performance.now() - started);
  }
  return median(rounds);
}

function check(jitless: boolean) {
  return (event: unknown): void => {
    if (!frameEventSchema.safeParse(event, { jitless }).success) throw new Error('a recorded frame does not parse');
  };
}

const meanBytes = texts.reduce((sum, text) => sum + text.length, 0) / texts.length;
console.log(`${frames.length} recorded frames (${withScans.length} with the scan map), mean ${meanBytes.toFixed(0)} B`);
console.log(
  `JSON.parse of the same frames (socket.io does this anyway): ${perItemMicros(texts, (text) => JSON.parse(text as string)).toFixed(2)} µs/frame`,
);
for (const jitless of [true, false]) {
  const mode = jitless ? 'jitless (browser under CSP)' : 'jit';
  // Warm up both paths before timing.
  perItemMicros(wireEvents, check(jitless));
  console.log(
    `${mode}: ${perItemMicros(wireEvents, check(jitless)).toFixed(2)} µs/frame, ` +
      `${perItemMicros(withScans, check(jitless)).toFixed(2)} µs/frame with the scan map, ` +
      `snapshot of ${SNAPSHOT_FRAMES} frames (${(snapshotBytes / 1024).toFixed(0)} kB): ${snapshotMillis(jitless).toFixed(1)} ms`,
  );
}
