import type { FastifyInstance } from 'fastify';
import { labRunsToCsv, labSummaryToMarkdown } from '@aioscope/core';
import type { LabService } from '../lab/labService.ts';

const ID_PATTERN = /^[a-z0-9]{12}$/;

function experimentId(params: unknown): string | null {
  const id = (params as { id?: unknown }).id;
  return typeof id === 'string' && ID_PATTERN.test(id) ? id : null;
}

/** The scan lab over REST: start, follow, list, export. Writes to a database only through LabService's checks. */
export function registerLabRoutes(app: FastifyInstance, lab: LabService): void {
  app.get('/api/lab', () => ({ embedded: lab.isEmbedded }));

  app.get('/api/lab/experiments', () => lab.list());

  app.post('/api/lab/experiments', { bodyLimit: 16 * 1024 }, (request, reply) => {
    const result = lab.start(request.body);
    if (!result.ok) return reply.code(result.status).send({ error: result.error });
    return reply.code(202).send({ id: result.id });
  });

  app.get('/api/lab/experiments/:id', async (request, reply) => {
    const id = experimentId(request.params);
    if (id === null) return reply.code(400).send({ error: 'experiment ids are 12 lowercase letters or digits' });
    const experiment = await lab.get(id);
    return experiment ?? reply.code(404).send({ error: `no experiment ${id}` });
  });

  app.get('/api/lab/experiments/:id/export', async (request, reply) => {
    const id = experimentId(request.params);
    const format = (request.query as { format?: unknown }).format;
    if (id === null) return reply.code(400).send({ error: 'experiment ids are 12 lowercase letters or digits' });
    if (format !== 'csv' && format !== 'md') return reply.code(400).send({ error: 'format must be csv or md' });
    const experiment = await lab.get(id);
    if (experiment === null) return reply.code(404).send({ error: `no experiment ${id}` });
    if (format === 'csv') {
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="aioscope-lab-${id}.csv"`)
        .send(labRunsToCsv(experiment.runs));
    }
    const baseline = experiment.definition.variants[experiment.definition.baseline]?.name ?? 'baseline';
    const title = `aioscope scan lab ${id}: ${experiment.definition.cacheState}, ${experiment.definition.tableMb} MB, ${experiment.definition.rounds} rounds`;
    return reply
      .type('text/markdown; charset=utf-8')
      .header('content-disposition', `attachment; filename="aioscope-lab-${id}.md"`)
      .send(labSummaryToMarkdown(title, experiment.summary, experiment.notes, baseline));
  });
}
