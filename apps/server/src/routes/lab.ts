import type { FastifyInstance } from 'fastify';
import { explainIoMarkdown, labSummaryToMarkdown, plural } from '@aioscope/core';
import { labRunsToCsv } from '../lab/labCsv.ts';
import { LAB_EXPERIMENT_ID } from '@aioscope/spec';
import { requireOperator } from '../http/access.ts';
import type { LabService } from '../lab/labService.ts';

const BAD_ID = 'experiment ids are 12 lowercase letters or digits';
/** What a cancel over REST records as its reason. */
const REST_CANCEL_REASON = 'cancelled on request (POST /api/lab/experiments/:id/cancel)';

function experimentId(params: unknown): string | null {
  const id = (params as { id?: unknown }).id;
  return typeof id === 'string' && LAB_EXPERIMENT_ID.test(id) ? id : null;
}

/**
 * The scan lab over REST: start, follow, cancel, list, export. Writes to a database only through
 * LabService's checks. Every error is { error } with a sentence a person can act on.
 */
export function registerLabRoutes(app: FastifyInstance, lab: LabService): void {
  app.get('/api/lab', () => lab.info());

  app.get('/api/lab/experiments', () => lab.list());

  app.post('/api/lab/experiments', { bodyLimit: 16 * 1024, preHandler: requireOperator }, (request, reply) => {
    const result = lab.start(request.body);
    if (!result.ok) return reply.code(result.status).send({ error: result.error });
    return reply.code(202).send({ id: result.id });
  });

  app.get('/api/lab/experiments/:id', async (request, reply) => {
    const id = experimentId(request.params);
    if (id === null) return reply.code(400).send({ error: BAD_ID });
    const experiment = await lab.get(id);
    return experiment ?? reply.code(404).send({ error: `no experiment ${id}` });
  });

  /** 200 with the experiment once it has ended as cancelled; 404 unknown id; 409 not running. */
  app.post('/api/lab/experiments/:id/cancel', { preHandler: requireOperator }, async (request, reply) => {
    const id = experimentId(request.params);
    if (id === null) return reply.code(400).send({ error: BAD_ID });
    const result = await lab.cancelExperiment(id, REST_CANCEL_REASON);
    if (!result.ok) return reply.code(result.status).send({ error: result.error });
    return result.experiment;
  });

  app.get('/api/lab/experiments/:id/export', async (request, reply) => {
    const id = experimentId(request.params);
    const format = (request.query as { format?: unknown }).format;
    if (id === null) return reply.code(400).send({ error: BAD_ID });
    if (format !== 'csv' && format !== 'md') return reply.code(400).send({ error: 'format must be csv or md' });
    const experiment = await lab.get(id);
    if (experiment === null) return reply.code(404).send({ error: `no experiment ${id}` });
    if (format === 'csv') {
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="aioscope-lab-${id}.csv"`)
        .send(labRunsToCsv(experiment.runs));
    }
    const { definition } = experiment;
    const baseline = definition.variants[definition.baseline]?.name ?? 'baseline';
    const title = `aioscope scan lab ${id}: ${definition.cacheState}, ${definition.tableMb} MB, ${plural(definition.rounds, 'round')}`;
    return reply
      .type('text/markdown; charset=utf-8')
      .header('content-disposition', `attachment; filename="aioscope-lab-${id}.md"`)
      .send(
        labSummaryToMarkdown(title, experiment.summary, experiment.notes, baseline) + explainIoMarkdown(experiment),
      );
  });
}
