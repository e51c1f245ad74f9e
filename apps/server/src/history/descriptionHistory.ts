/**
 * A target's description through time (store version 3): the targets table keeps only the latest,
 * so a range recorded before an upgrade would be described with the new server version and
 * settings, exactly what a before/after comparison must not do. Each change appends a row; a
 * store's reader answers describeAt(t) from the row in force at t. The SQL is the same on both
 * engines but for the table's schema and the parameters' casts.
 */

/** Appends the description unless it is the one already in force (a restart says the same again). */
export function appendDescriptionSql(table: string, types: { text: string; number: string }): string {
  const description = `$3::${types.text}`;
  return (
    `INSERT INTO ${table} (target, since, description) SELECT $1::${types.text}, $2::${types.number}, ${description} ` +
    `WHERE ${description} IS DISTINCT FROM (SELECT description FROM ${table} WHERE target = $1::${types.text} ORDER BY since DESC LIMIT 1)`
  );
}

/**
 * The description in force at $2: the newest at or before it; for a moment before the first one
 * known (recorded before the store kept a history), the oldest known.
 */
export function describeAtSql(table: string, types: { number: string }): string {
  const t = `$2::${types.number}`;
  return (
    `SELECT description FROM ${table} WHERE target = $1 ` +
    `ORDER BY (since <= ${t}) DESC, CASE WHEN since <= ${t} THEN -since ELSE since END LIMIT 1`
  );
}

export const DUCKDB_TYPES = { text: 'VARCHAR', number: 'DOUBLE' };
export const PG_TYPES = { text: 'text', number: 'float8' };
