import { vi } from 'vitest';
import type { TimeControlsProps } from '../timeline/TimeControls.tsx';

/** The time bar's props with every callback a mock: live, at `now`, unless `overrides` say otherwise. */
export function timeControlsProps(now: number, overrides: Partial<TimeControlsProps> = {}): TimeControlsProps {
  return {
    view: { mode: 'live' },
    targetId: 'recorded',
    hasLive: true,
    extent: undefined,
    extentError: null,
    notSampled: null,
    serverNow: now,
    at: now,
    playing: false,
    onView: vi.fn(),
    onPause: vi.fn(),
    onPlay: vi.fn(),
    onStep: vi.fn(),
    onMoment: vi.fn(),
    onOpenFile: vi.fn(),
    onOpenBaseline: vi.fn(),
    ...overrides,
  };
}
