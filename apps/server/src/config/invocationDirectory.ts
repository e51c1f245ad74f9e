import path from 'node:path';

/**
 * Where the user typed `npm start`, so that a relative path in a flag (`--targets fleet.yaml`,
 * `--data-dir`, `open rec.aioscope`) means what it meant there: npm runs a script from its
 * package's folder and names the folder it was run from in INIT_CWD. Only for this checkout's
 * `start` script: a process that a tool run by npm starts (a test, the bench) inherits INIT_CWD.
 */
export function invocationDirectory(env: NodeJS.ProcessEnv): string | null {
  if (env.npm_lifecycle_event !== 'start') return null;
  // Another package's start script that runs aioscope keeps npm's convention (its own folder).
  if (env.npm_package_name !== 'aioscope' && env.npm_package_name !== '@aioscope/server') return null;
  const folder = env.INIT_CWD;
  return folder !== undefined && path.isAbsolute(folder) ? folder : null;
}
