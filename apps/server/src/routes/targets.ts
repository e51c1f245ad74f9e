import type { FastifyInstance } from 'fastify';
import { UPGRADE_TARGET_VERSIONS, type UpgradeTargetVersion } from '@aioscope/core';
import type { TargetSummary } from '@aioscope/spec';
import { z } from 'zod';
import { describeDatabaseError } from '../postgres/sessions.ts';
import type { HistoryCatalog } from '../history/historyReader.ts';
import type { OpenedRecordings } from '../history/openedRecordings.ts';
import type { RemoteAnswer, RemoteTargets } from '../live/remoteTargets.ts';
import type { TargetMonitor } from '../sampler/targetMonitor.ts';

export const targetParamsSchema = z.object({
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

/** `?targetVersion=19`: the pre-upgrade check for that version instead of the next one (as `check --target-version`). */
const auditQuerySchema = z.object({
  targetVersion: z
    .enum(UPGRADE_TARGET_VERSIONS.map(String) as [string, ...string[]], {
      error: `targetVersion must be ${UPGRADE_TARGET_VERSIONS.join(' or ')}`,
    })
    .transform((value) => Number(value) as UpgradeTargetVersion)
    .optional(),
});

/** Refused; `unknown`: the parameters of a target this replica does not know (another may sample it). */
type Lookup<T> =
  { ok: true; monitor: TargetMonitor; params: T } | { ok: false; status: 400 | 404; error: string; unknown?: T };

/** Checks the path parameters and finds the target: 400 for malformed ones, 404 for an unknown target. */
function lookup<T extends { id: string }>(
  schema: z.ZodType<T>,
  params: unknown,
  monitors: ReadonlyMap<string, TargetMonitor>,
  recordings?: OpenedRecordings,
  unwatched?: () => readonly TargetSummary[],
): Lookup<T> {
  const parsed = schema.safeParse(params);
  if (!parsed.success)
    return { ok: false, status: 400, error: parsed.error.issues[0]?.message ?? 'invalid parameters' };
  const monitor = monitors.get(parsed.data.id);
  if (monitor === undefined && unwatched?.().some((t) => t.id === parsed.data.id) === true) {
    return {
      ok: false,
      status: 404,
      error: `"${parsed.data.id}" is no longer watched (removed from the targets file): read what was recorded through /api/targets/${parsed.data.id}/history`,
    };
  }
  if (monitor === undefined && recordings?.summary(parsed.data.id) !== undefined) {
    return { ok: false, status: 404, error: `"${parsed.data.id}" is a recording file: it has no live server to ask` };
  }
  if (monitor === undefined)
    return { ok: false, status: 404, error: `unknown target "${parsed.data.id}"`, unknown: parsed.data };
  return { ok: true, monitor, params: parsed.data };
}

/**
 * Live targets first (with `remote`, --adapter: also those other replicas sample, whose live view,
 * processes and audit this one relays from their owner), then those a targets file reload removed (`unwatchedSince` set: their
 * past stays readable), then recording files opened in this process (kind 'recording').
 */
export function registerTargetRoutes(
  app: FastifyInstance,
  monitors: ReadonlyMap<string, TargetMonitor>,
  recordings?: OpenedRecordings,
  unwatched?: (lastRelayed?: (id: string) => TargetSummary | undefined) => readonly TargetSummary[],
  remote?: RemoteTargets,
  /** --replica-name: each summary of a target sampled here names this replica. */
  replicaName?: string,
  /** --store: how the shared store last described a target (HistoryCatalog.storedDescription). */
  storedDescription?: HistoryCatalog['storedDescription'],
): void {
  const named = replicaName === undefined ? {} : { replica: replicaName };
  const summaryOf = (monitor: TargetMonitor): TargetSummary => ({ ...monitor.summary(), ...named });
  // What the owner last said of each target another replica samples: once the targets file drops
  // one, this replica lists it as no longer watched with its owner's last word (TargetsLeftTheFile).
  const lastRelayed = new Map<string, TargetSummary>();
  const sampledElsewhere = async (): Promise<TargetSummary[]> => {
    const found = new Map((await (remote?.summaries() ?? [])).map((t) => [t.id, t]));
    for (const id of monitors.keys()) found.delete(id);
    for (const [id, summary] of found) lastRelayed.set(id, summary);
    return [...found.values()];
  };
  // A target the file dropped that this replica never heard of but from the file: what the store
  // last recorded of it (its server, capabilities and rates), read once.
  const fromStore = new Map<string, TargetSummary>();
  const gone = async (): Promise<readonly TargetSummary[]> => {
    const known = (id: string): TargetSummary | undefined => lastRelayed.get(id) ?? fromStore.get(id);
    const listed = unwatched?.(known) ?? [];
    const unknown = listed.filter((t) => t.server === null && known(t.id) === undefined);
    if (storedDescription === undefined || unknown.length === 0) return listed;
    for (const target of unknown) {
      const described = await storedDescription(target.id).catch(() => null);
      if (described === null) continue;
      const { server, capabilities, sampleRateHz, statRateHz } = described;
      fromStore.set(target.id, { ...target, server, capabilities, sampleRateHz, statRateHz });
    }
    return unwatched?.(known) ?? [];
  };
  app.get('/api/targets', async () => {
    const remote = await sampledElsewhere();
    return [
      ...[...monitors.values()].map(summaryOf),
      ...remote,
      ...(await gone()).filter((t) => !monitors.has(t.id) && !remote.some((r) => r.id === t.id)),
      ...(recordings?.summaries() ?? []),
    ];
  });

  app.get('/api/targets/:id', async (request, reply) => {
    const parsed = targetParamsSchema.safeParse(request.params);
    const opened = parsed.success ? recordings?.summary(parsed.data.id) : undefined;
    if (opened !== undefined) return opened;
    const id = parsed.success ? parsed.data.id : null;
    const removed = id !== null && !monitors.has(id) ? (await gone()).find((t) => t.id === id) : undefined;
    if (removed !== undefined) return removed;
    const remote = id !== null && !monitors.has(id) ? (await sampledElsewhere()).find((t) => t.id === id) : undefined;
    if (remote !== undefined) return remote;
    const found = lookup(targetParamsSchema, request.params, monitors);
    return found.ok ? summaryOf(found.monitor) : reply.code(found.status).send({ error: found.error });
  });

  /** Refused here: for a target another replica samples, its owner's answer relayed (--adapter). */
  const refusedOrRelayed = async <T>(
    found: Extract<Lookup<T>, { ok: false }>,
    ask: (remote: RemoteTargets, params: T) => Promise<RemoteAnswer | null>,
  ): Promise<{ status: number; body: unknown }> => {
    const answer = remote === undefined || found.unknown === undefined ? null : await ask(remote, found.unknown);
    if (answer === null) return { status: found.status, body: { error: found.error } };
    return answer.ok ? { status: 200, body: answer.body } : { status: answer.status, body: { error: answer.error } };
  };

  app.get('/api/targets/:id/processes/:pid', async (request, reply) => {
    const found = lookup(processParamsSchema, request.params, monitors, recordings, unwatched);
    if (!found.ok) {
      const answer = await refusedOrRelayed(found, (r, { id, pid }) => r.processDetail(id, pid));
      return reply.code(answer.status).send(answer.body);
    }
    try {
      const detail = await found.monitor.processDetail(found.params.pid);
      if (detail === null) return reply.code(404).send({ error: `no process with pid ${found.params.pid}` });
      return detail;
    } catch (error) {
      return reply.code(503).send({ error: `target unavailable: ${describeDatabaseError(error)}` });
    }
  });

  app.get('/api/targets/:id/audit', async (request, reply) => {
    const found = lookup(targetParamsSchema, request.params, monitors, recordings, unwatched);
    if (!found.ok && found.unknown === undefined) return reply.code(found.status).send({ error: found.error });
    const query = auditQuerySchema.safeParse(request.query);
    if (!query.success) return reply.code(400).send({ error: query.error.issues[0]?.message ?? 'invalid query' });
    if (!found.ok) {
      const answer = await refusedOrRelayed(found, (r, { id }) => r.audit(id, query.data.targetVersion));
      return reply.code(answer.status).send(answer.body);
    }
    try {
      return await found.monitor.audit(query.data.targetVersion);
    } catch (error) {
      return reply.code(503).send({ error: `target unavailable: ${describeDatabaseError(error)}` });
    }
  });

  // Open without the token (http/access.ts, OPEN_ROUTE), for a container's HEALTHCHECK: it must
  // keep saying nothing but that aioscope is up.
  app.get('/api/health', () => ({ ok: true }));
}
