import { describe, expect, it } from 'vitest';
import {
  bytesPerSettingUnit,
  formatBytesLikePostgres,
  parseCapabilities,
  parseServerInfo,
  unsupportedVersionMessage,
  type ServerInfoQueryRow,
  type SettingQueryRow,
} from './settings.ts';
import { loadFixture } from './testFixtures.ts';

const fixture = loadFixture<{ info: ServerInfoQueryRow; settings: SettingQueryRow[] }>('pg18-server-info.json');

describe('server info (recorded on PostgreSQL 18)', () => {
  it('reads version, io_method and combine limits in bytes', () => {
    const info = parseServerInfo(fixture.info, fixture.settings);
    expect(info.versionNum).toBeGreaterThanOrEqual(180000);
    expect(info.ioMethod).toBe('worker');
    expect(info.ioCombineLimitBytes).toBe(131072);
    expect(info.ioMaxCombineLimitBytes).toBe(131072);
    expect(info.settings.find((s) => s.name === 'io_combine_limit')?.display).toBe('128kB');
    expect(info.settings.find((s) => s.name === 'track_io_timing')?.display).toBe('on');
  });

  it('reads the capabilities of a superuser on 18', () => {
    expect(parseCapabilities(fixture.info)).toEqual({
      hasPgAios: true,
      canReadPgAios: true,
      statIoHasBytes: true,
      canSeeAllActivity: true,
    });
  });

  it('never claims pg_aios is readable where it does not exist', () => {
    expect(parseCapabilities({ ...fixture.info, has_pg_aios: false, can_read_pg_aios: true }).canReadPgAios).toBe(
      false,
    );
  });
});

describe('units and versions', () => {
  it.each([
    ['8kB', 8192],
    ['kB', 1024],
    ['MB', 1048576],
    ['ms', null],
    [null, null],
  ])('bytes per unit %s', (unit, bytes) => {
    expect(bytesPerSettingUnit(unit)).toBe(bytes);
  });

  it('formats sizes as SHOW does', () => {
    expect(formatBytesLikePostgres(131072)).toBe('128kB');
    expect(formatBytesLikePostgres(64 * 1024 * 1024)).toBe('64MB');
    expect(formatBytesLikePostgres(1000)).toBe('1000B');
  });

  it('refuses servers older than 16 and names the minimum', () => {
    expect(unsupportedVersionMessage('15.8', 150008)).toMatch(/PostgreSQL 16 or newer/);
    expect(unsupportedVersionMessage('16.4', 160004)).toBeNull();
    expect(unsupportedVersionMessage('18.4', 180004)).toBeNull();
  });
});
