import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { formatDuration } from '@aioscope/core';
import {
  MAX_EXPORT_RANGE_MS,
  MAX_RECORDING_FILE_BYTES,
  newBaselineSchema,
  type Baseline,
  type BaselineList,
  type OpenedRecording,
} from '@aioscope/spec';
import { StoreClosedError, type BaselineShelf } from '../history/baselineShelf.ts';
import { OPEN_RETRY_AFTER_S, RecordingsBusyError } from '../history/openedRecordings.ts';
import { RecordingFileError, formatMegabytes, recordingFileName } from '../history/recordingFile.ts';
import { prepareRecording } from '../history/recordingFileWriter.ts';
import { findHistory, firstIssue, type HistorySources } from './historyLookup.ts';

/** A name and two numbers: anything larger is not a baseline request. */
const MARK_BODY_LIMIT = 1024;
const NO_STORE = 'baselines are kept in the history store, and recording is off in this process (--no-record)';
const BASELINE_FILE = 'baseline.aioscope.gz';
/** The last instant a Date can hold (ECMA-262): past it toISOString throws. */
const MAX_DATE_MS = 8.64e15;
/** How far past this server's clock a range may end: a browser's clock a little ahead of it. */
const FUTURE_SLACK_MS = 5_000;

const baselineParamsSchema = z.object({
  id: z
    .string()
    .max(80, 'baseline id is too long')
    .regex(/^baseline-[a-f0-9-]+$/, 'baseline ids are "baseline-" and a UUID'),
});

export interface BaselineRouteOptions {
  /** --operators is set: marking and removing are then operators' (viewers list, export and open). */
  operatorsNamed: boolean;
}

/**
 * Baselines: a range of a target marked to be kept, as the recording file of that range written
 * into the history store (aioscope's own, never the watched database). Opening one makes a
 * recording target, exactly as an uploaded file does, so every view (Compare included) reads it
 * by its target id.
 */
export function registerBaselineRoutes(
  app: FastifyInstance,
  sources: HistorySources,
  options: BaselineRouteOptions,
): void {
  const operatorsOnly = async (request: FastifyRequest, reply: FastifyReply): Promise<undefined | FastifyReply> => {
    const identity = request.identity;
    if (!options.operatorsNamed || identity?.role === 'operator') return undefined;
    const who = (identity?.user ?? null) === null ? 'you are' : `${identity?.user ?? ''} is`;
    return reply.code(403).send({
      error: `Marking and removing baselines needs the operator role; ${who} a viewer (operators are named with --operators).`,
    });
  };
  const shelfOf = (reply: FastifyReply): BaselineShelf | null => {
    const shelf = sources.history?.baselines;
    if (shelf === undefined) void reply.code(409).send({ error: NO_STORE });
    return shelf ?? null;
  };

  app.post(
    '/api/targets/:id/baselines',
    { bodyLimit: MARK_BODY_LIMIT, preHandler: operatorsOnly },
    async (request, reply) => {
      const found = findHistory(sources, request.params);
      if (!found.ok) return reply.code(found.status).send({ error: found.error });
      const type = request.headers['content-type'];
      if (type !== undefined && !type.startsWith('application/json')) {
        return reply.code(415).send({
          error: `a baseline is marked with a JSON body {"name", "from", "to"} (content-type: application/json), not ${type}`,
        });
      }
      const body = newBaselineSchema.safeParse(request.body ?? {});
      if (!body.success) return reply.code(400).send({ error: firstIssue(body.error) });
      const { name, from, to } = body.data;
      if (to - from > MAX_EXPORT_RANGE_MS) {
        return reply.code(400).send({
          error: `range too long: a baseline is a recording file, which holds at most ${formatDuration(MAX_EXPORT_RANGE_MS, 'limit')} (asked ${formatDuration(to - from, 'limit')}): mark a shorter range`,
        });
      }
      const now = Date.now();
      if (to > now + FUTURE_SLACK_MS) {
        const when = to <= MAX_DATE_MS ? ` (${new Date(to).toISOString()})` : '';
        return reply.code(400).send({
          error: `to is in the future${when}: a baseline keeps what was recorded, so end its range at ${new Date(now).toISOString()} or before`,
        });
      }
      const shelf = shelfOf(reply);
      if (shelf === null) return reply;
      const prepared = await prepareRecording(found.reader, { from, to });
      if (prepared.counts.frames === 0) {
        await prepared.dispose();
        const between = `${new Date(from).toISOString()} and ${new Date(to).toISOString()}`;
        return reply.code(422).send({ error: `nothing was recorded between ${between}: no baseline to keep` });
      }
      const file = Buffer.concat((await prepared.stream().toArray()) as Buffer[]);
      if (file.length > MAX_RECORDING_FILE_BYTES) {
        return reply.code(400).send({
          error: `its recording file would take ${formatMegabytes(file.length)}, over the ${formatMegabytes(MAX_RECORDING_FILE_BYTES)} a file may: mark a shorter range`,
        });
      }
      const baseline: Baseline = {
        id: `baseline-${randomUUID()}`,
        targetId: found.reader.targetId,
        targetName: prepared.header.target.name,
        name,
        from,
        to,
        bytes: file.length,
        createdBy: request.identity?.user ?? null,
        createdAt: Date.now(),
      };
      return withStore(reply, async () => {
        if ((await shelf.keepBaseline(baseline, file)) === 'nameTaken') {
          return reply
            .code(409)
            .send({ error: `${baseline.targetName} already has a baseline named "${name}": choose another name` });
        }
        return reply.code(201).send(baseline);
      });
    },
  );

  app.get('/api/baselines', async (_request, reply) => {
    const shelf = sources.history?.baselines;
    if (shelf === undefined) return { baselines: [], unavailable: NO_STORE } satisfies BaselineList;
    try {
      return { baselines: await shelf.listBaselines() } satisfies BaselineList;
    } catch (error) {
      if (!(error instanceof StoreClosedError)) throw error;
      return reply.code(503).send({ baselines: [], unavailable: error.message } satisfies BaselineList);
    }
  });

  app.get('/api/baselines/:id/export', async (request, reply) => {
    const found = await findBaseline(request, reply);
    if (found === null) return reply;
    const { baseline, shelf } = found;
    return withStore(reply, async () => {
      const file = await shelf.baselineFile(baseline.id);
      if (file === null) return reply.code(404).send({ error: `no baseline "${baseline.id}"` });
      // Its name first: the file name keeps 40 characters of the two.
      const fileName = recordingFileName(`${baseline.name} ${baseline.targetName}`, baseline.from);
      return reply
        .type('application/gzip')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .send(Buffer.from(file));
    });
  });

  app.delete('/api/baselines/:id', { preHandler: operatorsOnly }, async (request, reply) => {
    const found = await findBaseline(request, reply);
    if (found === null) return reply;
    // Without --operators every named user may mark; what one marked is theirs to remove, not a colleague's.
    const caller = request.identity;
    const markedBy = found.baseline.createdBy;
    if (markedBy !== null && caller?.via === 'proxy' && caller.role !== 'operator' && caller.user !== markedBy) {
      return reply
        .code(403)
        .send({ error: `"${found.baseline.name}" was marked by ${markedBy}: only they or an operator may remove it` });
    }
    return withStore(reply, async () => {
      if (!(await found.shelf.removeBaseline(found.baseline.id))) {
        return reply.code(404).send({ error: `no baseline "${found.baseline.id}"` });
      }
      return reply.code(204).send();
    });
  });

  /** The recording each baseline was last opened as: opening it again answers that one while it is open. */
  const openedAs = new Map<string, OpenedRecording>();
  app.post('/api/baselines/:id/open', async (request, reply) => {
    const found = await findBaseline(request, reply);
    if (found === null) return reply;
    const { baseline, shelf } = found;
    const already = openedAs.get(baseline.id);
    if (already !== undefined && sources.recordings.get(already.targetId) !== undefined) {
      return reply.code(200).send(already);
    }
    const slot = sources.recordings.reserve();
    if (slot === null) {
      return reply
        .code(503)
        .header('retry-after', String(OPEN_RETRY_AFTER_S))
        .send({ error: new RecordingsBusyError().message });
    }
    try {
      const bytes = await shelf.baselineFile(baseline.id);
      if (bytes === null) return reply.code(404).send({ error: `no baseline "${baseline.id}"` });
      const file = path.join(await slot.folder, BASELINE_FILE);
      await writeFile(file, bytes);
      const opened = await sources.recordings.open(slot, file, baseline.name);
      openedAs.set(baseline.id, opened);
      return reply.code(201).send(opened);
    } catch (error) {
      if (error instanceof RecordingFileError) return reply.code(400).send({ error: error.message });
      if (error instanceof StoreClosedError) return reply.code(503).send({ error: error.message });
      throw error;
    } finally {
      slot.release();
    }
  });

  /** The baseline named by :id, and the store holding it; null once the reply says why not. */
  async function findBaseline(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ baseline: Baseline; shelf: BaselineShelf } | null> {
    const params = baselineParamsSchema.safeParse(request.params);
    if (!params.success) {
      await reply.code(400).send({ error: firstIssue(params.error) });
      return null;
    }
    const shelf = shelfOf(reply);
    if (shelf === null) return null;
    try {
      const baseline = (await shelf.listBaselines()).find((kept) => kept.id === params.data.id);
      if (baseline === undefined) {
        await reply.code(404).send({ error: `no baseline "${params.data.id}"` });
        return null;
      }
      return { baseline, shelf };
    } catch (error) {
      if (!(error instanceof StoreClosedError)) throw error;
      await reply.code(503).send({ error: error.message });
      return null;
    }
  }
}

/** The store closed between the request's checks and its work (recording paused): 503 with why. */
async function withStore(reply: FastifyReply, work: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreClosedError) return reply.code(503).send({ error: error.message });
    throw error;
  }
}
