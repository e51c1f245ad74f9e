import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { describeDatabaseError } from '../sampler/sessions.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';

const targetParamsSchema = z.object({
  id: z
    .string()
    .max(64, 'target id is too long')
    .regex(/^[a-z0-9-]+$/, 'target ids are lowercase letters, digits and dashes'),
});

const processParamsSchema = targetParamsSchema.extend({
  pid: z.coerce
    .number({ error: 'pid must be a number' })
    .int('pid must be a whole number')
    .min(1, 'pid must be positive')
    .max(2 ** 31 - 1, 'pid is too large'),
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

  app.get('/api/targets/:id/processes/:pid', async (request, reply) => {
    const parsed = processParamsSchema.safeParse(request.params);
    if (!parsed.success) {
      return reply.code(400).send({ error: parsed.error.issues[0]?.message ?? 'invalid parameters' });
    }
    const monitor = monitors.get(parsed.data.id);
    if (monitor === undefined) return reply.code(404).send({ error: `unknown target "${parsed.data.id}"` });
    try {
      const detail = await monitor.processDetail(parsed.data.pid);
      if (detail === null) return reply.code(404).send({ error: `no process with pid ${parsed.data.pid}` });
      return detail;
    } catch (error) {
      return reply.code(503).send({ error: `target unavailable: ${describeDatabaseError(error)}` });
    }
  });

  app.get('/api/targets/:id/audit', async (request, reply) => {
    const parsed = targetParamsSchema.safeParse(request.params);
    if (!parsed.success) return reply.code(400).send({ error: parsed.error.issues[0]?.message ?? 'invalid target id' });
    const monitor = monitors.get(parsed.data.id);
    if (monitor === undefined) return reply.code(404).send({ error: `unknown target "${parsed.data.id}"` });
    try {
      return await monitor.audit();
    } catch (error) {
      return reply.code(503).send({ error: `target unavailable: ${describeDatabaseError(error)}` });
    }
  });

  app.get('/api/health', () => ({ ok: true }));
}
