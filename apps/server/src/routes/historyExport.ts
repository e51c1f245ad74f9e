import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { MAX_EXPORT_RANGE_MS, MAX_ROLLUP_RANGE_MS } from '@aioscope/spec';
import { recordingFileName } from '../history/recordingFile.ts';
import { prepareRecording } from '../history/recordingFileWriter.ts';
import { csvOfRange } from './historyCsv.ts';
import { findHistory, parseRange, type HistorySources } from './historyLookup.ts';

/** Both file names are made of [a-z0-9-TZ.] only (recordingFileName), so quoting them is enough. */
const attachment = (fileName: string): string => `attachment; filename="${fileName}"`;

/**
 * Downloads of a range: the recording file (raw frames, to open in another aioscope) and CSV (for
 * spreadsheets). Both stream: neither response is built whole in memory.
 */
export function registerHistoryExportRoutes(app: FastifyInstance, sources: HistorySources): void {
  app.get('/api/targets/:id/history/export', async (request, reply) => {
    const found = findHistory(sources, request.params);
    if (!found.ok) return reply.code(found.status).send({ error: found.error });
    const parsed = parseRange(
      request.query,
      MAX_EXPORT_RANGE_MS,
      'a recording file holds',
      ' of raw frames: export a shorter range, or the CSV of this one',
    );
    if (!parsed.ok) return reply.code(parsed.status).send({ error: parsed.error });
    const { range } = parsed;
    const prepared = await prepareRecording(found.reader, range);
    if (prepared.counts.frames === 0) {
      await prepared.dispose();
      const between = `${new Date(range.from).toISOString()} and ${new Date(range.to).toISOString()}`;
      return reply.code(404).send({ error: `nothing was recorded between ${between}` });
    }
    return reply
      .type('application/gzip')
      .header('content-disposition', attachment(recordingFileName(prepared.header.target.name, range.from)))
      .send(prepared.stream());
  });

  app.get('/api/targets/:id/history/export.csv', async (request, reply) => {
    const found = findHistory(sources, request.params);
    if (!found.ok) return reply.code(found.status).send({ error: found.error });
    const parsed = parseRange(request.query, MAX_ROLLUP_RANGE_MS, 'a CSV export covers');
    if (!parsed.ok) return reply.code(parsed.status).send({ error: parsed.error });
    const { target } = await found.reader.describe();
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', attachment(recordingFileName(target.name, parsed.range.from, '.csv')))
      .send(Readable.from(csvOfRange(found.reader, parsed.range, target.name), { objectMode: false }));
  });
}
