import { SERVER_VERSION_SQL, defaultUpgradeTarget, unsupportedVersionMessage } from '@aioscope/core';
import type { CheckReport } from '@aioscope/spec';
import { readAudit } from '../sampler/auditRead.ts';
import { clientConfigFromUrl } from '../postgres/libpqSsl.ts';
import { closeSession, describeDatabaseError, openSession } from '../postgres/sessions.ts';
import { withPasswordLookup } from '../targets/passwordLookup.ts';
import { describeConnection } from '../targets/resolveTarget.ts';
import { CHECK_EXIT, CHECK_HELP, parseCheckArgs, type CheckArgs } from './checkArgs.ts';
import { checkExitCode, formatCheckReport } from './checkReport.ts';

/** Short: a check in CI must fail fast on a server that does not answer. */
const CHECK_TIMEOUT_MS = 5_000;

/** Connects once, refuses what `start` refuses (older than 16), and reads the audit as the dashboard does. */
async function checkServer(args: Extract<CheckArgs, { ok: true }>): Promise<CheckReport> {
  const clientConfig = withPasswordLookup(clientConfigFromUrl(args.db));
  const server = describeConnection(clientConfig, process.env);
  let client;
  try {
    client = await openSession(clientConfig, {
      statementTimeoutMs: CHECK_TIMEOUT_MS,
      connectTimeoutMs: CHECK_TIMEOUT_MS,
    });
  } catch (error) {
    return { result: 'could not check', server, error: `cannot connect: ${describeDatabaseError(error)}` };
  }
  try {
    const row = (await client.query<{ version: string; version_num: number }>(SERVER_VERSION_SQL)).rows[0];
    if (row === undefined)
      return { result: 'could not check', server, error: 'the server did not answer the version query' };
    const versionNum = Number(row.version_num);
    const refusal = unsupportedVersionMessage(row.version, versionNum);
    if (refusal !== null) return { result: 'could not check', server, error: refusal };
    const report = await readAudit(client, 'server', args.targetVersion);
    const warnings = report.findings.filter((finding) => finding.level === 'warn').length;
    return {
      result: warnings > 0 ? 'warnings' : 'pass',
      server,
      version: row.version,
      versionNum,
      targetVersion: args.targetVersion ?? defaultUpgradeTarget(versionNum),
      checkedAt: report.checkedAt,
      warnings,
      findings: report.findings,
    };
  } catch (error) {
    return { result: 'could not check', server, error: describeDatabaseError(error) };
  } finally {
    await closeSession(client);
  }
}

/** `aioscope check --db URL`: the audit for scripts and CI, as `pg_upgrade --check` is. Returns the exit code. */
export async function runCheckCommand(argv: readonly string[]): Promise<number> {
  const args = parseCheckArgs(argv);
  if (args.ok === 'help') {
    process.stdout.write(CHECK_HELP);
    return CHECK_EXIT.pass;
  }
  if (args.ok === false) {
    console.error(`aioscope check: ${args.error} (see check --help)`);
    return CHECK_EXIT.badInput;
  }
  const report = await checkServer(args);
  if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  // A failure is also said on stderr in one line, so a CI log shows it whatever the format.
  if (report.result === 'could not check') console.error(`aioscope check: ${report.server}: ${report.error}`);
  else if (!args.json) process.stdout.write(formatCheckReport(report));
  return checkExitCode(report);
}
