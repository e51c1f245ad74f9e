import { describe, expect, it } from 'vitest';
import { describeDatabaseError } from './sessions.ts';

/** An error as node-postgres raises it: PostgreSQL's message and SQLSTATE (texts as PostgreSQL 18 words them). */
function serverError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('describeDatabaseError', () => {
  it('says "permission denied" once, whether or not PostgreSQL said it', () => {
    expect(describeDatabaseError(serverError('permission denied to create extension "pg_buffercache"', '42501'))).toBe(
      'permission denied to create extension "pg_buffercache"',
    );
    expect(describeDatabaseError(serverError('must be owner of table scan_me', '42501'))).toBe(
      'permission denied: must be owner of table scan_me',
    );
  });

  it('keeps to one line', () => {
    expect(describeDatabaseError(serverError('relation "x"\n  does not exist', '42P01'))).toBe(
      'relation "x" does not exist',
    );
  });
});
