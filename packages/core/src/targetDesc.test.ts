import { describe, expect, it } from 'vitest';
import { BLOCKS_PER_SEGMENT, parseRelationPath, parseTargetDesc, relationKey } from './targetDesc.ts';
import { loadFixture } from './testFixtures.ts';

describe('parseTargetDesc', () => {
  it('parses the range form', () => {
    expect(parseTargetDesc('blocks 55455..55470 in file "base/5/16423"')).toEqual({
      file: expect.objectContaining({
        databaseOid: 5,
        relfilenode: 16423,
        tablespaceOid: 1663,
        fork: 'main',
        temp: false,
      }),
      firstBlock: 55455,
      lastBlock: 55470,
    });
  });

  it('parses the singular form', () => {
    const parsed = parseTargetDesc('block 7 in file "base/5/16423"');
    expect([parsed?.firstBlock, parsed?.lastBlock]).toEqual([7, 7]);
  });

  it('parses the file-only form', () => {
    const parsed = parseTargetDesc('file "base/5/16423"');
    expect(parsed?.file.relfilenode).toBe(16423);
    expect(parsed?.firstBlock).toBeNull();
  });

  it('offsets blocks of a segment file so they stay relation-wide', () => {
    const parsed = parseTargetDesc('blocks 0..15 in file "base/5/16423.2"');
    expect(parsed?.firstBlock).toBe(2 * BLOCKS_PER_SEGMENT);
    expect(parsed?.lastBlock).toBe(2 * BLOCKS_PER_SEGMENT + 15);
    expect(parsed?.file.segment).toBe(2);
    const first = parseTargetDesc('blocks 0..15 in file "base/5/16423"');
    expect(relationKey(parsed?.file ?? fail())).toBe(relationKey(first?.file ?? fail()));
  });

  it('parses tablespace, global, temp and fork paths', () => {
    expect(parseRelationPath('pg_tblspc/16400/PG_18_202506291/5/16423')).toMatchObject({
      tablespaceOid: 16400,
      databaseOid: 5,
      relfilenode: 16423,
    });
    expect(parseRelationPath('global/1262')).toMatchObject({ tablespaceOid: 1664, databaseOid: 0, relfilenode: 1262 });
    expect(parseRelationPath('base/5/t3_16500')).toMatchObject({ temp: true, relfilenode: 16500 });
    expect(parseRelationPath('base/5/16423_vm')).toMatchObject({ fork: 'vm' });
    expect(parseRelationPath('base/5/16423_fsm.1')).toMatchObject({ fork: 'fsm', segment: 1 });
  });

  it('rejects what is not a target description', () => {
    for (const junk of [
      null,
      undefined,
      '',
      'blocks x..y in file "base/5/1"',
      'file "/etc/passwd"',
      'file "base/5/abc"',
    ]) {
      expect(parseTargetDesc(junk)).toBeNull();
    }
  });

  it('parses every target_desc recorded from PostgreSQL 18', () => {
    const fixture = loadFixture<{ duringScan: { aios: unknown[][] }[] }>('pg18-fast-tick.json');
    const descs = fixture.duringScan
      .flatMap((row) => row.aios.map((aio) => aio[9]))
      .filter((d) => typeof d === 'string');
    expect(descs.length).toBeGreaterThan(0);
    for (const desc of descs) expect(parseTargetDesc(desc as string), String(desc)).not.toBeNull();
  });
});

function fail(): never {
  throw new Error('unexpected null');
}
