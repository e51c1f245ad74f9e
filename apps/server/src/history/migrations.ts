/**
 * Versioned stores: one mechanism for every store aioscope keeps (the DuckDB file under the data
 * folder today; a shared PostgreSQL store can reuse it). A store records the version it is at; the
 * code holds an ordered list of migrations, version 1, 2, 3…, each a step that takes a store from
 * the version before to its own. Opening runs the missing steps in order, each in one transaction
 * together with the version it leaves, and refuses a store newer than the list: a newer aioscope
 * wrote it, and this one would misread it or write rows the newer one misreads.
 *
 * A migration is never edited once released (stores in the wild went through it as it was); a
 * change to a table or a stored format is a new migration at the end of the list.
 */

export interface Migration<C> {
  /** The version the store is at once this step has run: 1 for the first, then one more each. */
  readonly version: number;
  /** What the step does, for the log: "roll-ups gain a column …". */
  readonly describe: string;
  up(connection: C): Promise<void>;
}

/** What a store says of its version. */
export interface FoundVersion {
  /** 0: nothing in it yet (a new store). */
  version: number;
  /**
   * The store predates versions: it holds the tables of `version` but no record of it. It is
   * adopted at that version (the record written) before any step runs.
   */
  unrecorded: boolean;
}

/** A store as the mechanism sees it: how to read its version, and how to run a step with the new one. */
export interface VersionedStore<C> {
  readonly connection: C;
  readVersion(): Promise<FoundVersion>;
  /** Runs `work` and records `version` in one transaction: both happen or neither does. */
  step(version: number, work: (connection: C) => Promise<void>): Promise<void>;
}

/**
 * A store this code must not open: not retried (nothing this process does changes it), never moved
 * aside or written to. The message says what to do.
 */
export class StoreRefusedError extends Error {
  override readonly name: string = 'StoreRefusedError';
}

/** A store written by a newer aioscope than this one. */
export class NewerStoreError extends StoreRefusedError {
  override readonly name = 'NewerStoreError';
  constructor(
    readonly what: string,
    readonly storeVersion: number,
    readonly knownVersion: number,
    advice: string,
  ) {
    super(
      `${what} is version ${storeVersion}, written by a newer aioscope; this one reads up to version ${knownVersion}: ${advice}`,
    );
  }
}

/** The version a store is at once every migration ran (0 for an empty list). */
export function latestVersion(migrations: readonly Migration<unknown>[]): number {
  return migrations.at(-1)?.version ?? 0;
}

/** Throws unless the list is 1, 2, 3… in order: a gap or a repeat is a mistake in the code, not in a store. */
export function checkMigrations(migrations: readonly Migration<unknown>[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `migration ${index + 1} of the list is numbered ${migration.version}: versions are 1, 2, 3… in order, none skipped`,
      );
    }
  });
}

/**
 * The steps that take a store at `storeVersion` to the newest: every migration after it, in order.
 * Throws NewerStoreError for a store newer than the list.
 */
export function planMigrations<M extends Migration<unknown>>(
  migrations: readonly M[],
  storeVersion: number,
  what = 'the store',
  advice = 'update aioscope',
): M[] {
  checkMigrations(migrations);
  if (!Number.isInteger(storeVersion) || storeVersion < 0) {
    throw new StoreRefusedError(`${what} records version ${storeVersion}, which is not a version aioscope writes`);
  }
  const latest = latestVersion(migrations);
  if (storeVersion > latest) throw new NewerStoreError(what, storeVersion, latest, advice);
  return migrations.slice(storeVersion);
}

export interface MigrationOutcome {
  from: number;
  to: number;
  /** The store predated versions and was adopted at `from`. */
  adopted: boolean;
  ran: { version: number; describe: string }[];
}

/**
 * Brings a store to the newest version: adopts a store that predates versions, then runs each
 * missing step in its own transaction. A failing step throws and leaves the store at the version
 * before it (the steps before it stay done).
 */
export async function migrate<C>(
  store: VersionedStore<C>,
  migrations: readonly Migration<C>[],
  what?: string,
  advice?: string,
): Promise<MigrationOutcome> {
  const found = await store.readVersion();
  const steps = planMigrations(migrations, found.version, what, advice);
  const adopted = found.unrecorded && found.version > 0;
  if (adopted) await store.step(found.version, () => Promise.resolve());
  const ran: MigrationOutcome['ran'] = [];
  for (const migration of steps) {
    await store.step(migration.version, (connection) => migration.up(connection));
    ran.push({ version: migration.version, describe: migration.describe });
  }
  return { from: found.version, to: latestVersion(migrations), adopted, ran };
}
