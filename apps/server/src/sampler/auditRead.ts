import type pg from 'pg';
import {
  AUDIT_PG_CONFIG_SQL,
  AUDIT_ROLE_SETTINGS_SQL,
  AUDIT_SERVER_SQL,
  AUDIT_SETTINGS_SQL,
  AUDIT_SETTING_NAMES,
  AUDIT_TABLESPACES_SQL,
  auditSettings,
  isConnectionLevelError,
  type AuditRoleSettingRow,
  type AuditSettingRow,
  type AuditTablespaceRow,
  type UpgradeTargetVersion,
} from '@aioscope/core';
import type { AuditReport } from '@aioscope/spec';

/**
 * Reads settings, tablespaces, per-database and per-role settings and (superuser only) the build's
 * configure line, then applies the audit rules, the pre-upgrade check for `targetVersion` (by
 * default the next version that changes I/O) included. The dashboard's inspector and `aioscope
 * check` both read the audit here, so they cannot disagree. Everything but pg_config is readable
 * by any role.
 */
export async function readAudit(
  client: pg.ClientBase,
  targetId: string,
  targetVersion?: UpgradeTargetVersion,
): Promise<AuditReport> {
  const info = await client.query<{ t: number; version_num: number }>(AUDIT_SERVER_SQL);
  const settings = await client.query<AuditSettingRow>(AUDIT_SETTINGS_SQL, [AUDIT_SETTING_NAMES]);
  const tablespaces = await client.query<AuditTablespaceRow>(AUDIT_TABLESPACES_SQL);
  const roleSettings = await client.query<AuditRoleSettingRow>(AUDIT_ROLE_SETTINGS_SQL, [AUDIT_SETTING_NAMES]);
  let configure: string | null = null;
  try {
    configure = (await client.query<{ setting: string }>(AUDIT_PG_CONFIG_SQL)).rows[0]?.setting ?? null;
  } catch (error) {
    if (isConnectionLevelError(error)) throw error;
    // pg_config is readable by superusers only: configure stays null and the rule says it could not check.
  }
  const row = info.rows[0];
  return {
    targetId,
    checkedAt: Number(row?.t ?? Date.now()),
    findings: auditSettings({
      versionNum: Number(row?.version_num ?? 0),
      settings: settings.rows,
      tablespaces: tablespaces.rows,
      roleSettings: roleSettings.rows,
      configure,
      ...(targetVersion === undefined ? {} : { targetVersion }),
    }),
  };
}
