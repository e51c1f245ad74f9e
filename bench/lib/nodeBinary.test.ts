import { describe, expect, it } from 'vitest';
import { nodeVersionOf } from './nodeBinary.ts';

describe('nodeVersionOf', () => {
  it("gives the running node's version", () => {
    expect(nodeVersionOf(process.execPath)).toBe(process.version);
  });

  it('refuses a path that does not exist', () => {
    expect(() => nodeVersionOf('/nonexistent/node')).toThrow(/ENOENT/);
  });

  it('refuses a program that is not node', () => {
    // coreutils' echo answers --version with its own ("echo (GNU coreutils) 9.1"), not node's.
    expect(() => nodeVersionOf('/bin/echo')).toThrow(/not a node version/);
  });
});
