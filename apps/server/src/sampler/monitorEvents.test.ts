import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '@aioscope/spec';
import { MonitorEmitter, type MonitorEventName } from './monitorEvents.ts';

const status: TargetStatus = { state: 'live', message: null, since: 1, lastFrameAt: 2, skippedTicks: 0 };

describe('MonitorEmitter', () => {
  it('delivers each event to its own listeners and stops after unsubscribe', () => {
    const emitter = new MonitorEmitter(() => undefined);
    const seen: string[] = [];
    const off = emitter.on('status', (s) => seen.push(`status:${s.state}`));
    emitter.on('ioDelta', () => seen.push('delta'));
    emitter.emit('status', status);
    off();
    emitter.emit('status', status);
    expect(seen).toEqual(['status:live']);
    expect(emitter.listenerCount('status')).toBe(0);
    expect(emitter.listenerCount('ioDelta')).toBe(1);
  });

  it('reports a throwing consumer and still delivers to the others', () => {
    const errors: [MonitorEventName, unknown][] = [];
    const emitter = new MonitorEmitter((event, error) => errors.push([event, error]));
    const delivered: number[] = [];
    emitter.on('status', () => {
      throw new Error('recorder disk full');
    });
    emitter.on('status', () => delivered.push(1));
    expect(() => emitter.emit('status', status)).not.toThrow();
    expect(delivered).toEqual([1]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.[0]).toBe('status');
  });
});
