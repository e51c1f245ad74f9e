import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';

const targetParamsSchema = z.object({
  id: z
    .string()
    .max(64, 'target id is too long')
    .regex(/^[a-z0-9-]+$/, 'target ids are lowercase letters, digits and dashes'),
});

export function registerTargetRoutes(app: FastifyInstance, monitors: ReadonlyMap<string, TargetMonitor>): void {
  app.get('/api/targets', () => [...monitors.values()].map((monitor) => monitor.summary()));

  app.get('/api/targets/:id', async (request, reply) => {
    const parsed = targetParamsSchema.safeParse(request.params);
    if (!parsed.success) {
      return reply.code(400).send({ error: parsed.error.issues[0]?.message ?? 'invalid target id' });
    }
    const monitor = monitors.get(parsed.data.id);
    if (monitor === undefined) return reply.code(404).send({ error: `unknown target "${parsed.data.id}"` });
    return monitor.summary();
  });

  app.get('/api/health', () => ({ ok: true }));
}
