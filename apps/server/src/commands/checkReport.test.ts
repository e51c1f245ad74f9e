import { describe, expect, it } from 'vitest';
import { checkReportSchema, type AuditFinding, type CheckReport } from '@aioscope/spec';
import { checkExitCode, formatCheckReport } from './checkReport.ts';

const findings: AuditFinding[] = [
  {
    rule: 'track_io_timing',
    title: 'track_io_timing',
    level: 'pass',
    value: 'on',
    source: 'command line',
    why: 'I/O wait is timed',
  },
  {
    rule: 'upgrade_io_workers',
    title: 'before 19: io_workers',
    level: 'warn',
    value: '6',
    source: 'configuration file /etc/postgresql/18/main/postgresql.conf:88',
    why: 'io_workers is gone in 19: an unknown setting in a configuration file fails the start and every reload; replace it by io_min_workers (default 2) and io_max_workers (default 8): 19 grows the pool between them',
  },
];

function report(list: AuditFinding[]): CheckReport {
  const warnings = list.filter((finding) => finding.level === 'warn').length;
  return checkReportSchema.parse({
    result: warnings > 0 ? 'warnings' : 'pass',
    server: 'monitor@db1:5432/postgres',
    version: '18.4',
    versionNum: 180004,
    targetVersion: 19,
    checkedAt: 0,
    warnings,
    findings: list,
  });
}

describe('the check report', () => {
  it('puts the current checks and the pre-upgrade ones under their own headings', () => {
    const text = formatCheckReport(report(findings));
    const lines = text.split('\n');
    expect(lines[0]).toBe('aioscope check: monitor@db1:5432/postgres (PostgreSQL 18.4), checked for the upgrade to 19');
    expect(lines.indexOf('This server (PostgreSQL 18)')).toBeLessThan(lines.indexOf('Before upgrading to 19'));
    expect(text).toMatch(
      /^ {2}WARN {2}io_workers +6 +configuration file \/etc\/postgresql\/18\/main\/postgresql\.conf:88$/m,
    );
    expect(text).not.toContain('before 19: ');
    expect(lines.at(-2)).toBe('warnings: 1 warning, 1 pass, 0 info (exit 1)');
  });

  it('wraps each why under its row, no line of it longer than 96 columns', () => {
    const whyLines = formatCheckReport(report(findings))
      .split('\n')
      .filter((line) => line.startsWith('        '));
    expect(whyLines.length).toBeGreaterThan(1);
    for (const line of whyLines) expect(line.length).toBeLessThanOrEqual(96);
    expect(whyLines.map((line) => line.trim()).join(' ')).toContain('io_min_workers (default 2)');
  });

  it('exits 0 on pass, 1 on warnings, 3 when it could not check', () => {
    expect(checkExitCode(report(findings))).toBe(1);
    expect(checkExitCode(report(findings.slice(0, 1)))).toBe(0);
    const failed: CheckReport = { result: 'could not check', server: 's', error: 'connection refused' };
    expect(checkExitCode(failed)).toBe(3);
    expect(formatCheckReport(failed)).toBe('aioscope check: s: could not check: connection refused\n');
  });
});
