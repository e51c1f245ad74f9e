import { afterEach, describe, expect, it } from 'vitest';
import { ANNOUNCE_MS, INTEREST_TTL_MS, RemoteInterest, type WatchingAnnouncement } from './remoteInterest.ts';

/** Replicas on one in-process bus, as the adapter's channel delivers to every replica but the sender. */
function bus(): { join: (watched: () => string[], now: () => number) => RemoteInterest } {
  const listeners: WatchingAnnouncement[] = [];
  return {
    join: (watched, now) =>
      new RemoteInterest(
        {
          announce: (replica, targetIds) => listeners.forEach((listener) => listener(replica, targetIds)),
          onAnnouncement: (listener) => void listeners.push(listener),
        },
        watched,
        now,
      ),
  };
}

describe('RemoteInterest', () => {
  const started: RemoteInterest[] = [];
  afterEach(() => started.splice(0).forEach((interest) => interest.stop()));

  it('knows what another replica watches once it announced, and forgets it after the TTL', () => {
    let clock = 1_000;
    const now = (): number => clock;
    const replicas = bus();
    let watchedOnB: string[] = [];
    const owner = replicas.join(() => [], now);
    const b = replicas.join(() => watchedOnB, now);
    started.push(owner, b);

    expect(owner.watchedElsewhere('t1')).toBe(false);
    watchedOnB = ['t1'];
    b.announce();
    expect(owner.watchedElsewhere('t1')).toBe(true);
    expect(owner.watchedElsewhere('t2')).toBe(false);
    // A replica does not count its own viewers as watching elsewhere.
    expect(b.watchedElsewhere('t1')).toBe(false);

    clock += INTEREST_TTL_MS - 1;
    expect(owner.watchedElsewhere('t1')).toBe(true);
    clock += 2;
    expect(owner.watchedElsewhere('t1')).toBe(false);
  });

  it('replaces a replica’s set with its newest announcement (a leave)', () => {
    const replicas = bus();
    let watchedOnB = ['t1', 't2'];
    const owner = replicas.join(() => [], Date.now);
    const b = replicas.join(() => watchedOnB, Date.now);
    started.push(owner, b);
    b.announce();
    watchedOnB = ['t2'];
    b.announce();
    expect(owner.watchedElsewhere('t1')).toBe(false);
    expect(owner.watchedElsewhere('t2')).toBe(true);
  });

  it('repeats its set every ANNOUNCE_MS, so a replica that missed a change learns it', async () => {
    const replicas = bus();
    const owner = replicas.join(() => [], Date.now);
    const b = replicas.join(() => ['t3'], Date.now);
    started.push(owner, b);
    expect(owner.watchedElsewhere('t3')).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, ANNOUNCE_MS + 200));
    expect(owner.watchedElsewhere('t3')).toBe(true);
  });

  it('announces nothing once stopped', () => {
    const replicas = bus();
    const owner = replicas.join(() => [], Date.now);
    const b = replicas.join(() => ['t4'], Date.now);
    started.push(owner);
    b.stop();
    b.announce();
    expect(owner.watchedElsewhere('t4')).toBe(false);
  });
});
