import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { readersOfRange, rollupStepFor } from '@aioscope/core';
import {
  MAX_RAW_RANGE_MS,
  MAX_ROLLUP_POINTS,
  MAX_ROLLUP_RANGE_MS,
  ROLLUP_BASE_STEP_MS,
  type HistoryEvents,
  type HistoryReaders,
  type HistoryRollups,
} from '@aioscope/spec';
import { registerCompareRoute } from './compare.ts';
import { findHistory, firstIssue, parseRange, type HistorySources, type Refusal } from './historyLookup.ts';

const stepQuerySchema = z.object({
  stepMs: z.coerce
    .number({ error: 'stepMs must be a number (ms)' })
    .int('stepMs must be whole ms')
    .min(ROLLUP_BASE_STEP_MS, `stepMs must be at least ${ROLLUP_BASE_STEP_MS}`)
    .refine((step) => step % ROLLUP_BASE_STEP_MS === 0, `stepMs must be a multiple of ${ROLLUP_BASE_STEP_MS}`)
    .optional(),
});

function refuse(reply: FastifyReply, refusal: Refusal): FastifyReply {
  return reply.code(refusal.status).send({ error: refusal.error });
}

/**
 * The range API over a target's past: what is kept, raw frames for short ranges, roll-ups for long
 * ones, and events. Served alike for the recorder's store and for a recording file opened in memory.
 */
export function registerHistoryRoutes(app: FastifyInstance, sources: HistorySources): void {
  app.get('/api/targets/:id/history', async (request, reply) => {
    const found = findHistory(sources, request.params);
    return found.ok ? found.reader.extent() : refuse(reply, found);
  });

  app.get('/api/targets/:id/history/frames', async (request, reply) => {
    const found = findHistory(sources, request.params);
    if (!found.ok) return refuse(reply, found);
    const parsed = parseRange(request.query, MAX_RAW_RANGE_MS, 'raw frames are served for', ': read /history/rollups');
    if (!parsed.ok) return refuse(reply, parsed);
    return found.reader.frames(parsed.range);
  });

  // Who was reading: worked out from the raw samples, so it is served for the raw frames' ranges.
  app.get('/api/targets/:id/history/readers', async (request, reply) => {
    const found = findHistory(sources, request.params);
    if (!found.ok) return refuse(reply, found);
    const parsed = parseRange(
      request.query,
      MAX_RAW_RANGE_MS,
      'statements are listed for',
      ': they come from raw samples',
    );
    if (!parsed.ok) return refuse(reply, parsed);
    const [recorded, about] = await Promise.all([found.reader.frames(parsed.range), found.reader.describe()]);
    const readers = readersOfRange({
      frames: recorded.frames,
      processes: recorded.processes,
      processesBefore: recorded.processesBefore,
      blockSize: about.server?.blockSize ?? null,
    });
    const body: HistoryReaders = { targetId: found.reader.targetId, ...parsed.range, ...readers };
    return body;
  });

  app.get('/api/targets/:id/history/rollups', async (request, reply) => {
    const found = findHistory(sources, request.params);
    if (!found.ok) return refuse(reply, found);
    const parsed = parseRange(request.query, MAX_ROLLUP_RANGE_MS, 'roll-ups are served for');
    if (!parsed.ok) return refuse(reply, parsed);
    const step = stepQuerySchema.safeParse(request.query);
    if (!step.success) return refuse(reply, { ok: false, status: 400, error: firstIssue(step.error) });
    const { from, to } = parsed.range;
    const stepMs = rollupStepFor(from, to, step.data.stepMs, MAX_ROLLUP_POINTS);
    const points = await found.reader.rollups(parsed.range, stepMs);
    const body: HistoryRollups = { targetId: found.reader.targetId, from, to, stepMs, points };
    return body;
  });

  app.get('/api/targets/:id/history/events', async (request, reply) => {
    const found = findHistory(sources, request.params);
    if (!found.ok) return refuse(reply, found);
    const parsed = parseRange(request.query, MAX_ROLLUP_RANGE_MS, 'events are served for');
    if (!parsed.ok) return refuse(reply, parsed);
    const body: HistoryEvents = { targetId: found.reader.targetId, events: await found.reader.events(parsed.range) };
    return body;
  });

  // Two ranges side by side: read through the same lookup, so any side the routes above serve can be compared.
  registerCompareRoute(app, sources);
}
