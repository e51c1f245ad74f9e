/**
 * pg_aios.target_desc, as smgr_aio_describe_identity() writes it (src/backend/storage/smgr/smgr.c):
 *   blocks 55455..55470 in file "base/5/16423"
 *   block 7 in file "base/5/16423"
 *   file "base/5/16423"
 * The path is relpathbackend(): base/<db>/<relfilenode>, global/<relfilenode>,
 * pg_tblspc/<spc>/<version dir>/<db>/<relfilenode>, with a "t<proc>_" prefix for temp relations and
 * a "_fsm"/"_vm"/"_init" suffix for other forks. Block numbers are relation-wide; should a path carry
 * a segment suffix (".1", ".2" …), its blocks are offset by the segment size so they stay relation-wide.
 */

/** Blocks per 1 GB segment file at the default 8 kB block size (RELSEG_SIZE). */
export const BLOCKS_PER_SEGMENT = 131072;
/** pg_global's and pg_default's tablespace oids. */
export const GLOBAL_TABLESPACE_OID = 1664;
export const DEFAULT_TABLESPACE_OID = 1663;

export interface RelationFile {
  /** Tablespace oid (1663 pg_default, 1664 pg_global). */
  tablespaceOid: number;
  /** Database oid; 0 for shared catalogs in global/. */
  databaseOid: number;
  relfilenode: number;
  fork: 'main' | 'fsm' | 'vm' | 'init';
  temp: boolean;
  /** Segment number the path named (0 when none). */
  segment: number;
  /** The path as PostgreSQL printed it. */
  path: string;
}

export interface TargetDescription {
  file: RelationFile;
  /** Relation-wide first and last block of the I/O; null for the file-only form. */
  firstBlock: number | null;
  lastBlock: number | null;
}

/**
 * Matches the three forms with English messages. The quoted path may itself contain escaped
 * quotes only in theory (paths are digits and slashes), so the pattern takes everything to the
 * last quote.
 */
const DESC_PATTERN = /^(?:(?:blocks (\d+)\.\.(\d+)|block (\d+)) in )?file "(.+)"$/;
const PATH_PATTERN =
  /^(?:base\/(\d+)|global|pg_tblspc\/(\d+)\/[^/]+\/(\d+))\/(t\d+_)?(\d+)(?:_(fsm|vm|init))?(?:\.(\d+))?$/;

export function parseRelationPath(path: string): RelationFile | null {
  const match = PATH_PATTERN.exec(path);
  if (match === null) return null;
  const [, baseDb, spcOid, spcDb, tempPrefix, relfilenode, fork, segment] = match;
  const isGlobal = path.startsWith('global/');
  return {
    tablespaceOid: spcOid !== undefined ? Number(spcOid) : isGlobal ? GLOBAL_TABLESPACE_OID : DEFAULT_TABLESPACE_OID,
    databaseOid: isGlobal ? 0 : Number(baseDb ?? spcDb),
    relfilenode: Number(relfilenode),
    fork: (fork as RelationFile['fork'] | undefined) ?? 'main',
    temp: tempPrefix !== undefined,
    segment: segment === undefined ? 0 : Number(segment),
    path,
  };
}

export function parseTargetDesc(desc: string | null | undefined): TargetDescription | null {
  if (typeof desc !== 'string') return null;
  const match = DESC_PATTERN.exec(desc.trim());
  if (match === null) return null;
  const [, rangeFirst, rangeLast, single, path] = match;
  const file = parseRelationPath(path ?? '');
  if (file === null) return null;
  const offset = file.segment * BLOCKS_PER_SEGMENT;
  if (rangeFirst !== undefined && rangeLast !== undefined) {
    return { file, firstBlock: Number(rangeFirst) + offset, lastBlock: Number(rangeLast) + offset };
  }
  if (single !== undefined) return { file, firstBlock: Number(single) + offset, lastBlock: Number(single) + offset };
  return { file, firstBlock: null, lastBlock: null };
}

/** One key per relation fork, whatever segment a path named. */
export function relationKey(file: RelationFile): string {
  return `${file.tablespaceOid}/${file.databaseOid}/${file.temp ? 't' : ''}${file.relfilenode}/${file.fork}`;
}
