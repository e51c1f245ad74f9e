import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { METRICS_ROUTE } from '../http/access.ts';
import { MAX_NAMED_SCRAPERS, MetricsExporter, type MetricsSource } from './metricsExporter.ts';
import type { ReplicaState } from './replicaMetrics.ts';

const metricsQuerySchema = z.object({
  scraper: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,32}$/, 'scraper is 1-32 letters, digits, dots, dashes or underscores')
    .optional(),
});

/**
 * GET /metrics: the Prometheus exposition of every target. It sits behind the same token as the
 * rest of the app (the access hook guards every route; Prometheus sends it as a bearer header).
 * The exporter stops following the monitors when the app closes.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  monitors: ReadonlyMap<string, MetricsSource>,
  replica?: () => ReplicaState,
): void {
  const exporter = new MetricsExporter(monitors, replica === undefined ? {} : { replica });
  app.addHook('onClose', () => exporter.close());
  app.get(METRICS_ROUTE, async (request, reply) => {
    const query = metricsQuerySchema.safeParse(request.query);
    if (!query.success) return reply.code(400).send({ error: query.error.issues[0]?.message ?? 'invalid query' });
    const body = await exporter.scrape(query.data.scraper);
    if (body === null) {
      return reply
        .code(400)
        .send({ error: `at most ${MAX_NAMED_SCRAPERS} named scrapers keep intervals of their own` });
    }
    return reply.type(exporter.contentType).send(body);
  });
}
