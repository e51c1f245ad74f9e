import { execFileSync } from 'node:child_process';

/**
 * The version a node binary prints (`v24.22.3`), found by running it; throws an Error saying why
 * when the file does not run or prints something else. The bench labels its rows with it and
 * checks a --team-node path with it before starting anything.
 */
export function nodeVersionOf(file: string): string {
  const printed = execFileSync(file, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
  if (!/^v\d+\.\d+\.\d+/.test(printed)) {
    throw new Error(`it printed ${JSON.stringify((printed.split('\n')[0] ?? '').slice(0, 80))}, not a node version`);
  }
  return printed;
}
