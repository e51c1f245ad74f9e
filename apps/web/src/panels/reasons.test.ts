import { describe, expect, it } from 'vitest';
import { unsupportedVersionMessage } from '@aioscope/core';
import type { TargetSummary } from '@aioscope/spec';
import { aiosUnavailableReason, refusedReason } from './reasons.ts';

// What Debian's PostgreSQL 15.18 answered (core/fixtures/servers/pg15.18.json): version 15.18,
// server_version_num 150018; the monitor refuses it with core's sentence.
const refusal = unsupportedVersionMessage('15.18', 150_018);

const summary = (state: TargetSummary['status']['state'], message: string | null): TargetSummary => ({
  id: 'old',
  name: 'old',
  kind: 'external',
  status: { state, message, since: 0, lastFrameAt: null, skippedTicks: 0 },
  server: null,
  capabilities: null,
  sampleRateHz: 20,
  statRateHz: 1,
  demoWorkload: false,
  recording: null,
});

describe('why a panel is empty', () => {
  it('says a refused server is not sampled, and why, instead of waiting for a first sample', () => {
    expect(refusal).toMatch(/15\.18 is not supported/);
    const refused = summary('error', refusal);
    expect(aiosUnavailableReason(refused, undefined)).toBe(`Not sampled: ${refusal}`);
    expect(refusedReason(refused, 'Not audited')).toBe(`Not audited: ${refusal}`);
  });

  it('waits for the first sample while connecting', () => {
    expect(aiosUnavailableReason(summary('connecting', null), undefined)).toBe('Waiting for the first sample …');
    expect(refusedReason(summary('reconnecting', 'ECONNREFUSED'), 'Not sampled')).toBeNull();
  });

  it('does not blank the past of a target the targets file dropped, whatever its last status', () => {
    const dropped = { ...summary('error', 'removed from the targets file'), unwatchedSince: 1 };
    expect(refusedReason(dropped, 'Not sampled')).toBeNull();
  });
});
