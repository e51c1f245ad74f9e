import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbStoreEngine } from './duckdbStoreEngine.ts';
import { describeStoreContract, type StoreUnderTest } from './storeContract.ts';
import { STORE_FILE } from './storeFile.ts';
import { STORE_VERSION } from './storeMigrations.ts';

/** The embedded store: `<dir>/history.duckdb`, as the history plugin opens it under the data folder. */
async function duckdbStore(name: string): Promise<StoreUnderTest> {
  const root = await mkdtemp(path.join(tmpdir(), `aioscope-contract-${name}-`));
  const dir = path.join(root, 'history');
  return {
    engine: () => new DuckDbStoreEngine(dir),
    // Root ignores permissions: a file where the folder must go stops everyone.
    breakStore: () => writeFile(dir, 'not a folder'),
    heal: () => rm(dir, { force: true }),
    async makeNewer() {
      const instance = await DuckDBInstance.create(path.join(dir, STORE_FILE));
      try {
        const connection = await instance.connect();
        await connection.run('UPDATE store_meta SET store_version = $1', [STORE_VERSION + 1]);
        await connection.run('CHECKPOINT');
        connection.closeSync();
      } finally {
        instance.closeSync();
      }
    },
    async fingerprint() {
      await mkdir(dir, { recursive: true });
      const hash = createHash('sha256');
      for (const file of (await readdir(dir)).sort()) hash.update(file).update(await readFile(path.join(dir, file)));
      return hash.digest('hex');
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

describeStoreContract('DuckDB (embedded)', duckdbStore);
