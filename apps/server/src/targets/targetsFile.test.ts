import { describe, expect, it } from 'vitest';
import { parseTargetsFile, slugOf, TargetsFileError } from './targetsFile.ts';

const FILE = 'fleet.yml';

function rejects(text: string): string {
  try {
    parseTargetsFile(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(TargetsFileError);
    return (error as Error).message;
  }
  throw new Error('expected the file to be refused');
}

describe('the targets file', () => {
  it('reads urls and split fields, labels and rates; ids are slugs of the names', () => {
    const targets = parseTargetsFile(
      `# the fleet
- name: Orders (primary)
  url: postgres://aioscope@db1.internal:5433/orders?application_name=x
  labels: { env: prod, cluster: orders, tier: 1 }
  rate: auto
- name: billing
  host: db2.internal
  port: 5432
  user: aioscope
  database: billing
  rate: 50
`,
      FILE,
    );
    expect(targets.map((t) => [t.definition.id, t.definition.name, t.labels, t.rate])).toEqual([
      ['orders-primary', 'Orders (primary)', { env: 'prod', cluster: 'orders', tier: '1' }, 'auto'],
      ['billing', 'billing', {}, 50],
    ]);
    expect(targets[0]?.definition.clientConfig).toMatchObject({
      host: 'db1.internal',
      port: 5433,
      user: 'aioscope',
      database: 'orders',
    });
    expect(targets[1]?.definition.clientConfig).toEqual({
      host: 'db2.internal',
      port: 5432,
      user: 'aioscope',
      database: 'billing',
      // aioscope looks the password up itself (PGPASSWORD, PGPASSFILE or ~/.pgpass): passwordLookup.ts
      password: expect.any(Function),
    });
  });

  it.each([
    ['- name: a\n  url: postgres://x@h/d\n  hots: db\n', 'fleet.yml:3: target "a": unknown key "hots"'],
    [
      '- name: a\n  url: postgres://x@h/d\n- name: b\n  url: x: y\n',
      'fleet.yml:4: Nested mappings are not allowed in compact mappings',
    ],
    [
      '- name: a\n  url: postgres://x@h/d\n- name: a\n  url: postgres://y@h/d\n',
      'fleet.yml:3: target "a": duplicate name (first at line 1)',
    ],
    [
      '- name: DB 1\n  host: h\n- name: db-1\n  host: h\n',
      'fleet.yml:3: target "db-1": its id "db-1" is taken by "DB 1" (line 1)',
    ],
    ['- name: a\n  url: mysql://x@h/d\n', 'fleet.yml:2: target "a": url must start with postgres:// or postgresql://'],
    [
      '- name: a\n  url: postgres://x:secret@h/d\n',
      'fleet.yml:2: target "a": the url holds a password: put it in PGPASSWORD or ~/.pgpass',
    ],
    ['- name: a\n  host: h\n  password: secret\n', 'fleet.yml:3: target "a": unknown key "password"'],
    [
      '- name: a\n  url: postgres://x@h/d\n  host: h\n',
      'fleet.yml:2: target "a": give url or host/port/user/database, not both',
    ],
    ['- name: a\n  host: h\n  port: 99999\n', 'fleet.yml:3: target "a": port must be 1-65535'],
    ['- name: a\n  host: h\n  rate: 500\n', 'fleet.yml:3: target "a": rate must be auto or 1-100'],
    ['- name: a\n  host: h\n  labels: { 1x: y }\n', 'fleet.yml:3: target "a": label "1x" must be letters'],
    ['- url: postgres://x@h/d\n', 'fleet.yml:1: a target needs a name'],
    ['- name: a\n', 'fleet.yml:1: target "a": needs url, or host'],
    ['targets: []\n', 'fleet.yml:1: expected a list of targets'],
    ['[]\n', 'fleet.yml:1: the list of targets is empty'],
    ['- name: a\n  host: h\n  host: i\n', 'fleet.yml:3: Map keys must be unique'],
  ])('refuses %j naming file, line and target', (text, expected) => {
    expect(rejects(text)).toContain(expected);
  });

  it('makes ids from names that /t/:id accepts', () => {
    expect(slugOf('  Orders (Primary) #2 ')).toBe('orders-primary-2');
    expect(slugOf('x'.repeat(80))).toHaveLength(48);
    expect(slugOf('…')).toBe('');
  });
});
