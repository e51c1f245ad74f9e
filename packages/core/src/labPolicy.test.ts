import { describe, expect, it } from 'vitest';
import { labExperimentSchema } from '@aioscope/spec';
import {
  admitStart,
  checkLabPermission,
  describeDirectIoFailure,
  labUnavailableReason,
  type LabTargetFacts,
} from './labPolicy.ts';

const EMBEDDED: LabTargetFacts = { embedded: true, allowExternal: false, targetName: 'embedded PostgreSQL 18' };
const PROD: LabTargetFacts = { embedded: false, allowExternal: false, targetName: 'app@db1:5432/prod' };
const PROD_ALLOWED: LabTargetFacts = { ...PROD, allowExternal: true };

const sessionOnly = labExperimentSchema.parse({ tableMb: 16, cacheState: 'cold', variants: [{ name: 'a' }] });
const restarting = labExperimentSchema.parse({
  tableMb: 16,
  cacheState: 'cold',
  confirmTarget: 'app@db1:5432/prod',
  variants: [{ name: 'sync', server: { io_method: 'sync' } }],
});

describe('who may run the lab', () => {
  it('is on for the embedded server and off for a user server until --allow-lab, saying how to allow it', () => {
    expect(labUnavailableReason(EMBEDDED)).toBeNull();
    expect(labUnavailableReason(PROD)).toMatch(/off for app@db1:5432\/prod.*--allow-lab/);
    expect(labUnavailableReason(PROD_ALLOWED)).toBeNull();
  });

  it('needs the user server named to confirm, and never restarts it', () => {
    expect(checkLabPermission(EMBEDDED, sessionOnly)).toBeNull();
    expect(checkLabPermission(EMBEDDED, { ...restarting, confirmTarget: undefined })).toBeNull();
    expect(checkLabPermission(PROD, sessionOnly)).toMatchObject({ status: 403 });
    expect(checkLabPermission(PROD_ALLOWED, sessionOnly)).toEqual({
      status: 400,
      error: expect.stringMatching(/confirmTarget = "app@db1:5432\/prod"/),
    });
    expect(checkLabPermission(PROD_ALLOWED, { ...sessionOnly, confirmTarget: 'app@db1:5432/prod' })).toBeNull();
    expect(checkLabPermission(PROD_ALLOWED, restarting)).toEqual({
      status: 400,
      error: expect.stringMatching(/only the embedded server is ever restarted/),
    });
  });
});

describe('direct I/O', () => {
  const direct = labExperimentSchema.parse({
    tableMb: 16,
    cacheState: 'cold',
    directIo: true,
    confirmTarget: 'app@db1:5432/prod',
    variants: [{ name: 'a' }],
  });

  it('is allowed on the embedded server only, refused elsewhere with a sentence saying why', () => {
    expect(checkLabPermission(EMBEDDED, direct)).toBeNull();
    expect(checkLabPermission(PROD_ALLOWED, direct)).toEqual({
      status: 400,
      error:
        "direct I/O (debug_io_direct = data) restarts the server with a developer setting: only aioscope's embedded server is ever restarted",
    });
    expect(checkLabPermission(PROD_ALLOWED, { ...direct, directIo: false })).toBeNull();
    expect(checkLabPermission(PROD, direct)).toMatchObject({ status: 403 });
  });

  it("names the data folder's filesystem when PostgreSQL could not open a file with O_DIRECT", () => {
    const einval = 'could not open file "base/5/16384": Invalid argument';
    expect(describeDirectIoFailure(einval, '/mnt/lab/pg18/data')).toBe(
      `direct I/O is not supported by the filesystem of the data folder (/mnt/lab/pg18/data): ${einval}`,
    );
    expect(describeDirectIoFailure('embedded PostgreSQL failed to start: timeout', '/d')).toBe(
      'with direct I/O (debug_io_direct = data): embedded PostgreSQL failed to start: timeout',
    );
  });
});

describe('start rate limit', () => {
  const limit = { maxStarts: 3, windowMs: 60_000 };

  it('admits up to the limit within the window, then refuses with when to retry', () => {
    let starts: number[] = [];
    for (const t of [0, 1_000, 2_000]) {
      const admission = admitStart(starts, t, limit);
      expect(admission.admitted).toBe(true);
      starts = admission.starts;
    }
    const refused = admitStart(starts, 30_000, limit);
    expect(refused).toMatchObject({ admitted: false, retryAfterMs: 30_000 });
    if (!refused.admitted) expect(refused.error).toBe('at most 3 experiments a minute: try again in 30 s');
    expect(refused.starts).toEqual([0, 1_000, 2_000]);
  });

  it('forgets starts older than the window, so the list stays bounded', () => {
    const admission = admitStart([0, 1_000, 2_000], 60_500, limit);
    expect(admission).toEqual({ admitted: true, starts: [1_000, 2_000, 60_500] });
  });

  it('does not count a refused start against the next window', () => {
    const refused = admitStart([0, 1, 2], 10, limit);
    expect(refused.starts).toHaveLength(3);
    expect(admitStart(refused.starts, 60_001, limit).admitted).toBe(true);
  });
});
