import type { TargetSummary } from '@aioscope/spec';

export type StateTone = 'good' | 'warn' | 'bad' | 'muted';

/**
 * One word for a target's state, the same on the overview, in the header and in the switcher.
 * The monitor's 'error' state is a server that answered and was refused (older than 16, a role
 * that may not log in), so it reads "refused"; a target removed from the targets file is "no
 * longer watched", whatever its monitor said last.
 */
export function targetState(target: TargetSummary): { label: string; tone: StateTone } {
  if (target.kind === 'recording') return { label: 'recording file', tone: 'muted' };
  if (target.unwatchedSince !== undefined) return { label: 'no longer watched', tone: 'muted' };
  switch (target.status.state) {
    case 'live':
      return { label: 'live', tone: 'good' };
    case 'connecting':
      return { label: 'connecting', tone: 'warn' };
    case 'reconnecting':
      return { label: 'reconnecting', tone: 'warn' };
    case 'error':
      return { label: 'refused', tone: 'bad' };
  }
}
