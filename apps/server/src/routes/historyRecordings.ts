import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_RECORDING_FILE_BYTES, type OpenedRecording } from '@aioscope/spec';
import type { OpenedRecordings } from '../history/memoryHistoryCatalog.ts';
import { RecordingFileError, formatMegabytes } from '../history/recordingFile.ts';
import { readRecording } from '../history/recordingFileReader.ts';
import { firstIssue } from './historyLookup.ts';
import { targetParamsSchema } from './targets.ts';

const RECORDING_CONTENT_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'];

const openQuerySchema = z.object({
  /** The dropped file's name, shown with the target (the body is only its bytes). */
  name: z.string().max(1_000, 'name is too long').optional(),
});

/**
 * Recording files opened in a running aioscope: POST one (the body is the file's bytes) and it
 * becomes a target of kind 'recording'; DELETE closes it. A bad file changes nothing.
 */
export async function registerRecordingRoutes(app: FastifyInstance, recordings: OpenedRecordings): Promise<void> {
  // A scope of its own: the large body limit and the binary parser apply to this route alone.
  await app.register(async (scope) => {
    // Read whole (bounded) before checking: refusing a half-read upload would reset the connection
    // instead of telling the browser why.
    scope.addContentTypeParser(
      RECORDING_CONTENT_TYPES,
      { parseAs: 'buffer', bodyLimit: MAX_RECORDING_FILE_BYTES },
      (_request, body, done) => done(null, body),
    );

    scope.post(
      '/api/recordings',
      {
        bodyLimit: MAX_RECORDING_FILE_BYTES,
        onRequest: async (request, reply) => {
          if (Number(request.headers['content-length'] ?? 0) > MAX_RECORDING_FILE_BYTES) {
            return reply
              .code(413)
              .send({ error: `too large: recording files are at most ${formatMegabytes(MAX_RECORDING_FILE_BYTES)}` });
          }
        },
      },
      async (request, reply) => {
        const query = openQuerySchema.safeParse(request.query ?? {});
        if (!query.success) return reply.code(400).send({ error: firstIssue(query.error) });
        if (!Buffer.isBuffer(request.body)) {
          return reply.code(415).send({ error: `send the file's bytes as ${RECORDING_CONTENT_TYPES.join(' or ')}` });
        }
        if (request.body.length === 0)
          return reply.code(400).send({ error: 'the body is empty: send a recording file' });
        try {
          const loaded = await readRecording(request.body);
          const opened: OpenedRecording = recordings.add(loaded, query.data.name);
          return await reply.code(201).send(opened);
        } catch (error) {
          if (error instanceof RecordingFileError) return reply.code(400).send({ error: error.message });
          throw error;
        }
      },
    );
  });

  app.delete('/api/recordings/:id', async (request, reply) => {
    const parsed = targetParamsSchema.safeParse(request.params);
    if (!parsed.success) return reply.code(400).send({ error: firstIssue(parsed.error) });
    if (!recordings.close(parsed.data.id)) {
      return reply.code(404).send({ error: `no open recording "${parsed.data.id}"` });
    }
    return reply.code(204).send();
  });
}
