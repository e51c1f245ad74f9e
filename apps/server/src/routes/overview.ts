import type { FastifyInstance } from 'fastify';
import { OverviewTracker, type OverviewSources } from '../fleet/overviewTracker.ts';

/** GET /api/overview: one row per live target, most in need of attention first (fleet.ts). */
export function registerOverviewRoute(app: FastifyInstance, sources: OverviewSources): void {
  const tracker = new OverviewTracker(sources);
  app.addHook('onClose', async () => tracker.close());
  app.get('/api/overview', () => tracker.overview());
}
