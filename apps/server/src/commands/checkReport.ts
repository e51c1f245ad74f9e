import type { AuditFinding, CheckReport } from '@aioscope/spec';
import { CHECK_EXIT } from './checkArgs.ts';
import { wrapWords } from '../system/wrapWords.ts';

/** The width the why lines are wrapped at: readable in an 80-column terminal and a CI log. */
const WRAP_COLUMNS = 96;
const INDENT = '        ';
const UPGRADE_TITLE = /^before (\d+): /;

export function checkExitCode(report: CheckReport): number {
  if (report.result === 'could not check') return CHECK_EXIT.couldNotCheck;
  return report.result === 'warnings' ? CHECK_EXIT.warnings : CHECK_EXIT.pass;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** One block of findings under a heading: aligned level, setting, value and origin, the why wrapped below. */
function section(heading: string, findings: readonly AuditFinding[]): string[] {
  if (findings.length === 0) return [];
  const rows = findings.map((finding) => ({
    level: finding.level.toUpperCase(),
    setting: finding.title.replace(UPGRADE_TITLE, ''),
    value: finding.value,
    source: finding.source,
    why: finding.why,
  }));
  const settingWidth = Math.max(...rows.map((row) => row.setting.length));
  const valueWidth = Math.max(...rows.map((row) => row.value.length));
  const lines = ['', heading];
  for (const row of rows) {
    lines.push(
      `  ${row.level.padEnd(5)} ${row.setting.padEnd(settingWidth)}  ${row.value.padEnd(valueWidth)}  ${row.source}`,
    );
    for (const why of wrapWords(row.why, WRAP_COLUMNS - INDENT.length)) lines.push(`${INDENT}${why}`);
  }
  return lines;
}

/** The readable table `aioscope check` prints by default: this server's checks, then the pre-upgrade ones. */
export function formatCheckReport(report: CheckReport): string {
  if (report.result === 'could not check')
    return `aioscope check: ${report.server}: could not check: ${report.error}\n`;
  const current = report.findings.filter((finding) => !UPGRADE_TITLE.test(finding.title));
  const upgrade = report.findings.filter((finding) => UPGRADE_TITLE.test(finding.title));
  const count = (level: AuditFinding['level']): number => report.findings.filter((f) => f.level === level).length;
  const target = report.targetVersion === null ? '' : `, checked for the upgrade to ${report.targetVersion}`;
  const lines = [
    `aioscope check: ${report.server} (PostgreSQL ${report.version})${target}`,
    ...section(`This server (PostgreSQL ${Math.floor(report.versionNum / 10000)})`, current),
    ...section(`Before upgrading to ${report.targetVersion ?? '?'}`, upgrade),
    '',
    `${report.result === 'warnings' ? 'warnings' : 'pass'}: ${plural(count('warn'), 'warning')}, ${count('pass')} pass, ${count('info')} info (exit ${checkExitCode(report)})`,
  ];
  return `${lines.join('\n')}\n`;
}
