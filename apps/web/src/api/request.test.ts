import { describe, expect, it } from 'vitest';
import { refusal } from './request.ts';

describe('refusal', () => {
  it("carries the server's own sentence when it sent one, else what was asked and the status", () => {
    expect(refusal('/api/lab', 409, { error: 'the lab is busy: one experiment at a time' }).message).toBe(
      'the lab is busy: one experiment at a time',
    );
    expect(refusal('/api/lab', 502, null).message).toBe('/api/lab: HTTP 502');
    expect(refusal('/api/lab', 500, { unexpected: true }).message).toBe('/api/lab: HTTP 500');
  });
});
