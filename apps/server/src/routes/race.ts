import type { FastifyInstance } from 'fastify';
import { LAB_EXPERIMENT_ID } from '@aioscope/spec';
import { requireOperator } from '../http/access.ts';
import type { LabService } from '../lab/labService.ts';
import { prepareRaceRecording } from '../race/raceExport.ts';
import { RaceService } from '../race/raceService.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';

const BAD_ID = 'race ids are 12 lowercase letters or digits (a race has its experiment id)';

function raceId(params: unknown): string | null {
  const id = (params as { id?: unknown }).id;
  return typeof id === 'string' && LAB_EXPERIMENT_ID.test(id) ? id : null;
}

/**
 * Races over REST: start (a preset or any lab experiment), follow, export as a recording file.
 * Every refusal is the lab's own (policy, one at a time, rate), as { error } with its sentence.
 */
export function registerRaceRoutes(
  app: FastifyInstance,
  lab: LabService,
  monitors: ReadonlyMap<string, TargetMonitor>,
): void {
  const races = new RaceService(lab, (message) => app.log.warn(message));

  app.post('/api/race', { bodyLimit: 16 * 1024, preHandler: requireOperator }, (request, reply) => {
    const result = races.start(request.body);
    if (!result.ok) return reply.code(result.status).send({ error: result.error });
    return reply.code(202).send({ id: result.id });
  });

  app.get('/api/race/:id', async (request, reply) => {
    const id = raceId(request.params);
    if (id === null) return reply.code(400).send({ error: BAD_ID });
    const race = await races.get(id);
    return (
      race ??
      reply.code(404).send({
        error: `No race ${id} on this server: no experiment has this id (a link from another aioscope, or its result file was removed).`,
      })
    );
  });

  app.get('/api/race/:id/export', async (request, reply) => {
    const id = raceId(request.params);
    if (id === null) return reply.code(400).send({ error: BAD_ID });
    const summary = monitors.get(lab.target.id)?.summary();
    const prepared = await prepareRaceRecording({
      raceId: id,
      target: { id: lab.target.id, name: lab.target.name },
      server: summary?.server ?? null,
      capabilities: summary?.capabilities ?? null,
      captures: races.captures(id),
    });
    if (prepared === null) {
      return reply
        .code(404)
        .send({ error: `race ${id} has no captured frames here (captures are kept in memory, newest races only)` });
    }
    return reply
      .type('application/gzip')
      .header('content-disposition', `attachment; filename="aioscope-race-${id}.aioscope.gz"`)
      .send(prepared.stream());
  });
}
