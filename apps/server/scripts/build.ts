/**
 * Builds what `npm pack` ships for `npx aioscope` (run by `prepack`):
 *   dist/cli.js, dist/recordingIngestWorker.js  the server's bundle (scripts/serverBundle.ts)
 *   dist/web/    the dashboard, built from apps/web straight into the package, so a pack never
 *                rewrites the apps/web/dist that `npm start` and the e2e tests serve
 * src/app/webRoot.ts finds dist/web beside the bundle.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { build as buildWeb } from 'vite';
import { SERVER_DIR, bundleServer } from './serverBundle.ts';

const WEB_DIR = path.resolve(SERVER_DIR, '../web');
const OUT_DIR = path.join(SERVER_DIR, 'dist');

rmSync(OUT_DIR, { recursive: true, force: true });

await bundleServer(OUT_DIR, { sourcemap: false });

await buildWeb({
  root: WEB_DIR,
  build: { outDir: path.join(OUT_DIR, 'web'), emptyOutDir: true },
  logLevel: 'warn',
});

console.log(`aioscope: built ${path.relative(process.cwd(), OUT_DIR) || '.'} (cli.js, recordingIngestWorker.js, web/)`);
