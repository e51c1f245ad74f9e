import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the built web app, found from where this code runs: the packed package ships it
 * beside its bundle (dist/web next to dist/cli.js, see scripts/build.ts); run from the repository's
 * sources (apps/server/src/app) it is apps/web/dist, which `npm start` builds.
 */
export function findWebRoot(moduleUrl: string): string {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const packaged = path.join(here, 'web');
  if (existsSync(path.join(packaged, 'index.html'))) return packaged;
  // apps/server/dist/cli.js (a build) or apps/server/src/app/webRoot.ts (the sources): both in apps/server.
  const serverDir = path.basename(here) === 'dist' ? path.dirname(here) : path.resolve(here, '../..');
  return path.resolve(serverDir, '../web/dist');
}

export const WEB_ROOT = findWebRoot(import.meta.url);
