import { describe, expect, it } from 'vitest';
import { invocationDirectory } from './invocationDirectory.ts';

describe('invocationDirectory', () => {
  it('is where npm start was typed, which npm names in INIT_CWD', () => {
    const start = { npm_lifecycle_event: 'start', npm_package_name: 'aioscope' };
    expect(invocationDirectory({ ...start, INIT_CWD: '/home/me/fleet' })).toBe('/home/me/fleet');
    expect(invocationDirectory({ ...start, npm_package_name: '@aioscope/server', INIT_CWD: '/home/me/fleet' })).toBe(
      '/home/me/fleet',
    );
    // Another package's start script keeps npm's convention: its own folder.
    expect(invocationDirectory({ ...start, npm_package_name: 'their-app', INIT_CWD: '/home/me' })).toBeNull();
  });

  it('is nothing for a process another npm script started (a test, the bench): INIT_CWD is inherited there', () => {
    expect(invocationDirectory({ npm_lifecycle_event: 'test:integration', INIT_CWD: '/home/me' })).toBeNull();
    expect(invocationDirectory({ INIT_CWD: '/home/me' })).toBeNull();
  });

  it('is nothing without an absolute INIT_CWD', () => {
    expect(invocationDirectory({ npm_lifecycle_event: 'start', npm_package_name: 'aioscope' })).toBeNull();
    expect(
      invocationDirectory({ npm_lifecycle_event: 'start', npm_package_name: 'aioscope', INIT_CWD: 'relative/dir' }),
    ).toBeNull();
  });
});
