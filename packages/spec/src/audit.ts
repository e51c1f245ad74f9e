/** The settings audit: the AIO upgrade checklist as rules over pg_settings and friends. */

export type AuditLevel = 'pass' | 'warn' | 'info';

export interface AuditFinding {
  /** Stable id of the rule, e.g. "effective_io_concurrency_file_override". */
  rule: string;
  /** Short title a DBA scans, e.g. "effective_io_concurrency". */
  title: string;
  level: AuditLevel;
  /** The value(s) the rule looked at, as PostgreSQL shows them, e.g. "1" or "32 (capped to 16)". */
  value: string;
  /** Where the value came from: pg_settings source and sourcefile:line, or another catalog. */
  source: string;
  /** One line of why this matters, or why it passes. */
  why: string;
}

export interface AuditReport {
  targetId: string;
  /** Server clock when the inputs were read, epoch ms. */
  checkedAt: number;
  findings: AuditFinding[];
}
