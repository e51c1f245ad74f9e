import { describe, expect, it } from 'vitest';
import { storeLabel } from './pgStoreEngine.ts';

describe('storeLabel', () => {
  it('keeps the host, port, database and user, never a password', () => {
    const label = storeLabel('postgres://team:s3cret@store.internal:5433/aioscope');
    expect(label).toBe('history store at postgres://team@store.internal:5433/aioscope');
  });

  it('drops the parameters, where node-postgres reads a password too', () => {
    const label = storeLabel('postgres://team@store.internal/aioscope?password=s3cret&sslpassword=k3y&sslmode=require');
    expect(label).toBe('history store at postgres://team@store.internal/aioscope');
    expect(label).not.toContain('s3cret');
    expect(label).not.toContain('k3y');
  });

  it('names no address when the string is not a URL (key=value form may hold a password)', () => {
    expect(storeLabel('host=store.internal password=s3cret dbname=aioscope')).toBe('history store (PostgreSQL)');
  });
});
