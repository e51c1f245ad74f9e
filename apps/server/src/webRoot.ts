import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the built web app, found from where this code runs: the packed package ships it
 * beside its bundle (dist/web next to dist/cli.js, see scripts/build.ts); run from the repository's
 * sources (apps/server/src) it is apps/web/dist, which `npm start` builds.
 */
export function findWebRoot(moduleUrl: string): string {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const packaged = path.join(here, 'web');
  if (existsSync(path.join(packaged, 'index.html'))) return packaged;
  return path.resolve(here, '../../web/dist');
}

export const WEB_ROOT = findWebRoot(import.meta.url);
