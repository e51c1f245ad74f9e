import { z } from 'zod';

/** The settings audit: the AIO upgrade checklist as rules over pg_settings and friends. */

export const AUDIT_LEVELS = ['pass', 'warn', 'info'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];

export const auditFindingSchema = z.object({
  /** Stable id of the rule, e.g. "effective_io_concurrency_file_override". */
  rule: z.string(),
  /** Short title a DBA scans, e.g. "effective_io_concurrency". */
  title: z.string(),
  level: z.enum(AUDIT_LEVELS),
  /** The value(s) the rule looked at, as PostgreSQL shows them, e.g. "1" or "32 (capped to 16)". */
  value: z.string(),
  /** Where the value came from: pg_settings source and sourcefile:line, or another catalog. */
  source: z.string(),
  /** One line of why this matters, or why it passes. */
  why: z.string(),
});
export type AuditFinding = z.infer<typeof auditFindingSchema>;

/** GET /api/targets/:id/audit */
export const auditReportSchema = z.object({
  targetId: z.string(),
  /** Server clock when the inputs were read, epoch ms. */
  checkedAt: z.number(),
  findings: z.array(auditFindingSchema),
});
export type AuditReport = z.infer<typeof auditReportSchema>;

/** What `aioscope check` answers: its exit code and `result` say the same thing. */
export const CHECK_RESULTS = ['pass', 'warnings', 'could not check'] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];

/** `aioscope check --json`: the audit and pre-upgrade check of one server, for scripts and CI. */
export const checkReportSchema = z.discriminatedUnion('result', [
  z.object({
    result: z.enum(['pass', 'warnings']),
    /** "user@host:port/db", never the password. */
    server: z.string(),
    /** server_version, e.g. "17.10". */
    version: z.string(),
    versionNum: z.number().int(),
    /** The major version the pre-upgrade findings are for; null on the newest version there is. */
    targetVersion: z.number().int().nullable(),
    checkedAt: z.number(),
    warnings: z.number().int(),
    findings: z.array(auditFindingSchema),
  }),
  z.object({
    result: z.literal('could not check'),
    server: z.string(),
    /** One line: why the server could not be checked (unreachable, too old, a query refused). */
    error: z.string(),
  }),
]);
export type CheckReport = z.infer<typeof checkReportSchema>;
