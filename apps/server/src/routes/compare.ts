import type { FastifyInstance } from 'fastify';
import { compareSide, compareSides, formatDuration, rollupStepFor, settingsCaveatOf } from '@aioscope/core';
import {
  MAX_COMPARE_RANGE_MS,
  MAX_RAW_RANGE_MS,
  MAX_ROLLUP_POINTS,
  compareQuerySchema,
  type CompareResult,
  type CompareSide,
  type HistoryRange,
} from '@aioscope/spec';
import type { HistoryReader } from '../history/historyReader.ts';
import { findHistory, firstIssue, type HistorySources, type Refusal } from './historyLookup.ts';

/**
 * One side read through its history reader: roll-ups for the figures, raw frames for the scans
 * when the range is short enough, and the description as it was at the range's start (the
 * store's description history); the events in the range say whether settings changed during it.
 */
async function readSide(reader: HistoryReader, range: HistoryRange): Promise<CompareSide> {
  const stepMs = rollupStepFor(range.from, range.to, undefined, MAX_ROLLUP_POINTS);
  const withRaw = range.to - range.from <= MAX_RAW_RANGE_MS;
  const [points, raw, about, events] = await Promise.all([
    reader.rollups(range, stepMs),
    withRaw ? reader.frames(range) : Promise.resolve(null),
    reader.describeAt(range.from),
    reader.events(range),
  ]);
  return compareSide({
    targetId: reader.targetId,
    ...range,
    about,
    points,
    stepMs,
    raw,
    // The description in force at the start is itself a change at the start: only later ones count.
    settingsCaveat: settingsCaveatOf(events.filter((event) => event.t > range.from)),
  });
}

function sideRange(side: 'a' | 'b', from: number, to: number): { ok: true; range: HistoryRange } | Refusal {
  if (to - from <= MAX_COMPARE_RANGE_MS) return { ok: true, range: { from, to } };
  const limit = formatDuration(MAX_COMPARE_RANGE_MS, 'limit');
  return {
    ok: false,
    status: 400,
    error: `range of side ${side} too long: at most ${limit} (${side}From to ${side}To)`,
  };
}

/** GET /api/compare: two recorded ranges side by side and the sentence of how A differs from B. */
export function registerCompareRoute(app: FastifyInstance, sources: HistorySources): void {
  app.get('/api/compare', async (request, reply) => {
    const parsed = compareQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) return reply.code(400).send({ error: firstIssue(parsed.error) });
    const query = parsed.data;
    const sides = [
      { name: 'a' as const, id: query.aTarget, from: query.aFrom, to: query.aTo },
      { name: 'b' as const, id: query.bTarget, from: query.bFrom, to: query.bTo },
    ];
    const read: Promise<CompareSide>[] = [];
    for (const side of sides) {
      const range = sideRange(side.name, side.from, side.to);
      if (!range.ok) return reply.code(range.status).send({ error: range.error });
      const found = findHistory(sources, { id: side.id });
      if (!found.ok) return reply.code(found.status).send({ error: `${side.name}Target: ${found.error}` });
      read.push(readSide(found.reader, range.range));
    }
    const [a, b] = await Promise.all(read);
    if (a === undefined || b === undefined) throw new Error('both sides are read');
    const body: CompareResult = compareSides(a, b);
    return body;
  });
}
