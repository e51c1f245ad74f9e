import path from 'node:path';

/**
 * Where the user typed `npm start`, so that a relative path in a flag (`--targets fleet.yaml`,
 * `--data-dir`, `open rec.aioscope`) means what it meant there: npm runs a script from its
 * package's folder and names the folder it was run from in INIT_CWD. Only for npm's own `start`
 * run: a process that a tool run by npm starts (a test, the bench) inherits INIT_CWD from it.
 */
export function invocationDirectory(env: NodeJS.ProcessEnv): string | null {
  if (env.npm_lifecycle_event !== 'start') return null;
  const folder = env.INIT_CWD;
  return folder !== undefined && path.isAbsolute(folder) ? folder : null;
}
