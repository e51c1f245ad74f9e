import { describe, expect, it } from 'vitest';
import { identity, operatorOnlyReason, parseOperators, roleOf } from './roles.ts';

describe('roles', () => {
  it('makes an operator of a name --operators lists, exactly, and a viewer of any other', () => {
    const operators = new Set(parseOperators(['alice, bob', 'carol', ' ,']));
    expect([...operators]).toEqual(['alice', 'bob', 'carol']);
    expect(roleOf('alice', operators)).toBe('operator');
    expect(roleOf('carol', operators)).toBe('operator');
    expect(roleOf('Alice', operators)).toBe('viewer');
    expect(roleOf('mallory', operators)).toBe('viewer');
    expect(roleOf('mallory', new Set())).toBe('viewer');
  });

  it('says which role a viewer lacks and for what; nothing for an operator', () => {
    expect(operatorOnlyReason('alice', 'operator')).toBeNull();
    const reason = operatorOnlyReason('dave', 'viewer') ?? '';
    expect(reason).toMatch(/^Needs the operator role: starting or cancelling lab runs and races/);
    expect(reason).toContain('dave is a viewer');
    expect(identity(null, 'operator', 'token')).toEqual({
      user: null,
      role: 'operator',
      via: 'token',
      operatorOnly: null,
    });
    expect(identity('dave', 'viewer', 'proxy').operatorOnly).toBe(reason);
  });
});
