import { describe, expect, it } from 'vitest';
import {
  DEMO_SCANS,
  DEMO_TABLE,
  createDemoTableSql,
  demoSchemaSql,
  dropDemoTableSql,
  freezeDemoTableSql,
  ownTableName,
} from './demoSql.ts';
import { QUERY_TAG } from './sql.ts';

describe('demo SQL', () => {
  it('builds statements only for aioscope-shaped table names', () => {
    expect(ownTableName(DEMO_TABLE)).toBe('aioscope_demo.scan_me');
    for (const bad of ['scan_me', 'a.b; DROP TABLE x', 'A.b', 'a.b.c', '"a".b']) {
      expect(() => ownTableName(bad)).toThrow(/not an aioscope table name/);
      expect(() => dropDemoTableSql(bad)).toThrow();
    }
    expect(() => createDemoTableSql(DEMO_TABLE, 0)).toThrow(/row count/);
    expect(() => createDemoTableSql(DEMO_TABLE, 1.5)).toThrow(/row count/);
  });

  it('tags every statement so a DBA can find it, and names the schema of the table', () => {
    const statements = [
      demoSchemaSql(DEMO_TABLE),
      dropDemoTableSql(DEMO_TABLE),
      createDemoTableSql(DEMO_TABLE, 1000),
      freezeDemoTableSql(DEMO_TABLE),
      ...DEMO_SCANS,
    ];
    for (const sql of statements) expect(sql.startsWith(QUERY_TAG)).toBe(true);
    expect(demoSchemaSql(DEMO_TABLE)).toMatch(/CREATE SCHEMA IF NOT EXISTS aioscope_demo$/);
    expect(createDemoTableSql(DEMO_TABLE, 1000)).toMatch(/generate_series\(1, 1000\)/);
  });
});
