import { describe, expect, it } from 'vitest';
import { displayFileName, OpenedRecordings } from './memoryHistoryCatalog.ts';
import { syntheticRecording } from './recordingFileFixture.ts';

describe('OpenedRecordings', () => {
  it('keeps at most its bound, closing the oldest', () => {
    const recordings = new OpenedRecordings(3);
    const recording = syntheticRecording({ durationMs: 1_000 });
    const ids = ['a', 'b', 'c', 'd'].map((name) => recordings.add(recording, `${name}.aioscope.gz`).targetId);
    expect(ids).toEqual(['recording-1', 'recording-2', 'recording-3', 'recording-4']);
    expect(recordings.summaries().map((summary) => summary.id)).toEqual(['recording-2', 'recording-3', 'recording-4']);
    expect(recordings.get('recording-1')).toBeUndefined();
  });

  it('describes a recording as a target with no live stream', () => {
    const recordings = new OpenedRecordings();
    const recording = syntheticRecording({ durationMs: 1_000 });
    const { targetId } = recordings.add(recording, 'x.aioscope.gz', 42);
    const summary = recordings.summary(targetId);
    expect(summary?.kind).toBe('recording');
    expect(summary?.recording).toEqual({ ...recording.header.range, fileName: 'x.aioscope.gz' });
    expect(summary?.status).toMatchObject({ state: 'error', since: 42, lastFrameAt: recording.frames.at(-1)?.t });
  });

  it.each([
    ['/home/me/a.aioscope.gz', 'a.aioscope.gz'],
    ['C:\\Users\\me\\b.aioscope.gz', 'b.aioscope.gz'],
    ['bad\u0007name\n.gz', 'badname.gz'],
    ['', 'recording'],
    [undefined, 'recording'],
  ])('shows %j as %j', (name, shown) => {
    expect(displayFileName(name)).toBe(shown);
  });
});
