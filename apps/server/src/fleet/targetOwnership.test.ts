import { describe, expect, it } from 'vitest';
import { holdLimit, preferenceOrder, shareOf } from './targetOwnership.ts';

const targets = Array.from({ length: 60 }, (_, i) => `t${i}`);

describe('preferenceOrder', () => {
  it('orders every target once, whatever order the targets file lists them in', () => {
    const order = preferenceOrder('host:1:aa', targets);
    expect([...order].sort()).toEqual([...targets].sort());
    expect(preferenceOrder('host:1:aa', [...targets].reverse())).toEqual(order);
  });

  it('keeps the others in place when a target is added or removed (no reshuffle on a file edit)', () => {
    const order = preferenceOrder('host:1:aa', targets);
    const without = preferenceOrder(
      'host:1:aa',
      targets.filter((t) => t !== 't7'),
    );
    expect(without).toEqual(order.filter((t) => t !== 't7'));
  });

  it('gives each replica its own order, so first choices spread over the replicas', () => {
    const replicas = ['host:1:aa', 'host:2:bb', 'host:3:cc'];
    const firstChoices = replicas.map((replica) => preferenceOrder(replica, targets).slice(0, 20));
    // Three replicas taking their 20 favourite targets each: with one shared order they would all
    // want the same 20; with independent orders about a third overlap.
    const wantedByAll = targets.filter((t) => firstChoices.every((choices) => choices.includes(t)));
    expect(wantedByAll.length).toBeLessThan(10);
    expect(new Set(firstChoices.flat()).size).toBeGreaterThan(30);
  });
});

describe('shareOf', () => {
  it('is an even share rounded up, and everything for a replica that counts no one', () => {
    expect(shareOf(60, 3)).toBe(20);
    expect(shareOf(61, 3)).toBe(21);
    expect(shareOf(5, 0)).toBe(5);
  });
});

describe('holdLimit', () => {
  it('is the share rounded down while another replica holds fewer, the share rounded up once none does', () => {
    // 4 targets, 3 replicas: a replica holding 2 gives one back while another holds none.
    expect(holdLimit(4, 3, 0)).toBe(1);
    expect(holdLimit(4, 3, 1)).toBe(2);
    expect(holdLimit(7, 3, 1)).toBe(2);
    expect(holdLimit(7, 3, 2)).toBe(3);
    // Whole shares: the same either way, as before.
    expect(holdLimit(60, 3, 0)).toBe(20);
    expect(holdLimit(60, 3, 20)).toBe(20);
    // Alone (or counting no one): everything.
    expect(holdLimit(6, 1, Infinity)).toBe(6);
  });
});
