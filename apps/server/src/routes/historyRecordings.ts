import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_RECORDING_FILE_BYTES } from '@aioscope/spec';
import {
  OPEN_RETRY_AFTER_S,
  RecordingsBusyError,
  type OpenSlot,
  type OpenedRecordings,
} from '../history/openedRecordings.ts';
import { RecordingFileError, formatMegabytes } from '../history/recordingFile.ts';
import { firstIssue } from './historyLookup.ts';
import { targetParamsSchema } from './targets.ts';

const RECORDING_CONTENT_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'];
const UPLOAD_FILE = 'upload.aioscope.gz';
const TOO_LARGE = `too large: recording files are at most ${formatMegabytes(MAX_RECORDING_FILE_BYTES)}`;

const openQuerySchema = z.object({
  /** The dropped file's name, shown with the target (the body is only its bytes). */
  name: z.string().max(1_000, 'name is too long').optional(),
});

/** What the body parser leaves: the upload on disk, in the slot's folder. */
interface UploadedFile {
  path: string;
  bytes: number;
}

class UploadTooLarge extends Error {}

/** Streams the body to a file, counting bytes: an upload is never held in memory. */
async function saveUpload(body: NodeJS.ReadableStream, file: string): Promise<number> {
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback(bytes > MAX_RECORDING_FILE_BYTES ? new UploadTooLarge(TOO_LARGE) : null, chunk);
    },
  });
  await pipeline(body, limit, createWriteStream(file));
  return bytes;
}

const slots = new WeakMap<FastifyRequest, OpenSlot>();

/**
 * Recording files opened in a running aioscope: POST one (the body is the file's bytes) and it
 * becomes a target of kind 'recording'; DELETE closes it (its opener or an operator, behind a proxy). A bad file changes nothing. One file
 * opens at a time: while one does, the next is answered 503 with Retry-After before its body is
 * read, so a burst of uploads costs neither memory nor the sampler's time.
 */
export async function registerRecordingRoutes(app: FastifyInstance, recordings: OpenedRecordings): Promise<void> {
  // A scope of its own: the streaming body parser applies to this route alone.
  await app.register(async (scope) => {
    scope.addContentTypeParser(RECORDING_CONTENT_TYPES, (request, payload, done) => {
      const slot = slots.get(request);
      if (slot === undefined) {
        done(new Error('no open slot reserved for this upload'), undefined);
        return;
      }
      void (async () => {
        const file = path.join(await slot.folder, UPLOAD_FILE);
        const bytes = await saveUpload(payload, file);
        return { path: file, bytes } satisfies UploadedFile;
      })().then(
        (uploaded) => done(null, uploaded),
        (error: unknown) => {
          if (error instanceof UploadTooLarge) done(Object.assign(error, { statusCode: 413 }), undefined);
          else done(error as Error, undefined);
        },
      );
    });

    const releaseSlot = (request: FastifyRequest): void => {
      slots.get(request)?.release();
      slots.delete(request);
    };

    scope.post(
      '/api/recordings',
      {
        onRequest: async (request, reply) => {
          if (Number(request.headers['content-length'] ?? 0) > MAX_RECORDING_FILE_BYTES) {
            return reply.code(413).send({ error: TOO_LARGE });
          }
          const slot = recordings.reserve();
          if (slot === null) return busy(reply);
          slots.set(request, slot);
        },
        onResponse: async (request) => releaseSlot(request),
        onRequestAbort: async (request) => releaseSlot(request),
      },
      async (request, reply) => {
        const slot = slots.get(request);
        if (slot === undefined) return busy(reply);
        const query = openQuerySchema.safeParse(request.query ?? {});
        if (!query.success) return reply.code(400).send({ error: firstIssue(query.error) });
        const uploaded = request.body as UploadedFile | undefined;
        if (uploaded?.path === undefined) {
          return reply.code(415).send({ error: `send the file's bytes as ${RECORDING_CONTENT_TYPES.join(' or ')}` });
        }
        if (uploaded.bytes === 0) return reply.code(400).send({ error: 'the body is empty: send a recording file' });
        try {
          const openedBy = request.identity?.via === 'proxy' ? request.identity.user : null;
          return await reply.code(201).send(await recordings.open(slot, uploaded.path, query.data.name, openedBy));
        } catch (error) {
          if (error instanceof RecordingFileError) return reply.code(400).send({ error: error.message });
          if (error instanceof RecordingsBusyError) return busy(reply);
          throw error;
        }
      },
    );
  });

  app.delete('/api/recordings/:id', async (request, reply) => {
    const parsed = targetParamsSchema.safeParse(request.params);
    if (!parsed.success) return reply.code(400).send({ error: firstIssue(parsed.error) });
    const refusal = recordings.closeRefusal(parsed.data.id, request.identity ?? { user: null, role: 'viewer' });
    if (refusal !== null) return reply.code(403).send({ error: refusal });
    if (!recordings.close(parsed.data.id)) {
      return reply.code(404).send({ error: `no open recording "${parsed.data.id}"` });
    }
    return reply.code(204).send();
  });
}

function busy(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .header('retry-after', String(OPEN_RETRY_AFTER_S))
    .send({ error: new RecordingsBusyError().message });
}
