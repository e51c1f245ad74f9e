import { describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import { buildLiveFrame, parseFastTickRow } from '@aioscope/core';
import type { FrameEvent } from '@aioscope/spec';
import { PayloadChecker } from '../api/checkPayload.ts';
import { onChecked, type LiveSocket } from './onChecked.ts';

/** A frame built the way the sampler builds it, from one pg_aios read and one waiting backend. */
const { frame } = buildLiveFrame(
  parseFastTickRow({
    t: 1_796_039_257_370.361,
    aios: [[20674, 1152, 1, 'SUBMITTED', 'readv', 8192, 1, false, false, 'block 0 in file "base/5/16448"']],
    procs: [[20674, 'client backend', 'IO', 'AioIoUringExecution', 1_796_039_257_368.677]],
  }),
  { previousIoKeys: new Set(), sampleMs: 1.5, skippedTicks: 0, ioMethod: 'io_uring' },
);

function listen(): { deliver: (payload: unknown) => void; received: FrameEvent[]; warnings: string[] } {
  // A real client socket that never connects: its listeners are called as the transport would.
  const socket: LiveSocket = io('http://127.0.0.1:9', { autoConnect: false });
  const received: FrameEvent[] = [];
  const warnings: string[] = [];
  const checker = new PayloadChecker({ warn: (message) => warnings.push(message) });
  onChecked(socket, 'frame', (event) => received.push(event), checker);
  const deliver = (payload: unknown): void => {
    for (const listener of socket.listeners('frame')) (listener as (payload: unknown) => void)(payload);
  };
  return { deliver, received, warnings };
}

describe('onChecked', () => {
  it('hands on a frame event that parses, as it came over the wire', () => {
    const { deliver, received, warnings } = listen();
    const wire = JSON.parse(JSON.stringify({ targetId: 'local', frame }));
    deliver(wire);
    expect(received).toEqual([wire]);
    expect(received[0]?.frame.byProcess[20674]).toEqual([1, 8192]);
    expect(warnings).toEqual([]);
  });

  it('drops one that does not, with one warning naming the event', () => {
    const { deliver, received, warnings } = listen();
    deliver({ targetId: 'local', frame: { ...frame, inflight: { total: { count: '1', bytes: 8192 } } } });
    deliver({ targetId: 'local', frame: null });
    expect(received).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/"frame" payload: .* at frame\.inflight\.total\.count: /);
  });
});
