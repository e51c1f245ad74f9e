import type { HistoryExtent, LiveFrame } from '@aioscope/spec';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { recordedPayloads } from '../testing/recorded.ts';
import { timeControlsProps } from '../testing/timeControlsProps.ts';
import { TimeControls, type TimeControlsProps } from './TimeControls.tsx';
import type { TimeView } from './timeView.ts';

const MINUTE = 60_000;
let frames: LiveFrame[] = [];
/** The server's clock at the newest recorded sample. */
let now = 0;

beforeAll(async () => {
  frames = (await recordedPayloads('pg19beta3-worker')).frames;
  now = frames.at(-1)?.t ?? 0;
});

/** What GET …/history/extent says of a store that has kept the recorded samples. */
function extentOf(state: HistoryExtent['recording']['state'], reason: string | null = null): HistoryExtent {
  const raw = { from: frames[0]?.t ?? 0, to: now };
  return {
    targetId: 'recorded',
    recording: { state, reason },
    raw,
    rollups: raw,
    retention: { rawMs: 24 * 60 * MINUTE, rollupMs: 30 * 24 * 60 * MINUTE, maxBytes: 1024 ** 3 },
    bytesOnDisk: 3 * 1024 ** 2,
  };
}

/** The time bar with every callback recorded; `view` live unless given. */
async function renderControls(overrides: Partial<TimeControlsProps> = {}): Promise<TimeControlsProps> {
  const props = timeControlsProps(now, { extent: extentOf('recording'), ...overrides });
  await render(<TimeControls {...props} />);
  return props;
}

const bar = page.getByRole('region', { name: 'Time' });
const pastRanges = bar.getByRole('group', { name: 'Show a past range' });
const pastRange = (ms: number, at = now): Extract<TimeView, { mode: 'range' }> => ({
  mode: 'range',
  from: Math.ceil(now) - ms,
  to: Math.ceil(now),
  at,
  speed: null,
});

describe('TimeControls, live', () => {
  test('live: Pause pauses; no export offered until a range is chosen', async () => {
    const props = await renderControls();
    await expect.element(bar).toHaveTextContent('live');
    await bar.getByRole('button', { name: 'Pause' }).click();
    expect(props.onPause).toHaveBeenCalledOnce();
    await expect.element(bar.getByRole('link', { name: 'Export recording' })).not.toBeInTheDocument();
  });

  test('a range button shows that much time ending now, and none is pressed while live', async () => {
    const props = await renderControls();
    expect(pastRanges.getByRole('button', { pressed: true }).elements()).toHaveLength(0);
    await pastRanges.getByRole('button', { name: '5 min', exact: true }).click();
    expect(props.onView).toHaveBeenCalledWith(pastRange(5 * MINUTE, Math.ceil(now)));
  });

  test('what the recorder keeps, or why it does not', async () => {
    await renderControls();
    await expect.element(bar).toHaveTextContent('recording · ');
    await expect.element(bar).toHaveTextContent('of samples kept');
  });

  test('a paused recorder says why', async () => {
    await renderControls({ extent: extentOf('paused', 'the disk is full') });
    await expect.element(bar).toHaveTextContent('recording paused: the disk is full');
  });

  test('a history that cannot be read says so', async () => {
    await renderControls({ extent: undefined, extentError: 'HTTP 503' });
    await expect.element(bar).toHaveTextContent('history unavailable: HTTP 503');
  });

  test('a refused server is neither live nor recorded: the bar says it is not sampled', async () => {
    await renderControls({ notSampled: 'Not sampled: PostgreSQL 15.20 is not supported' });
    await expect.element(bar.getByTestId('time-state')).toHaveTextContent('live: not sampled');
    await expect
      .element(bar.getByTestId('recording-state'))
      .toHaveTextContent('not recording: the server is not sampled');
    await expect.element(bar.getByTestId('recording-state')).not.toHaveTextContent(/^recording ·/);
  });

  test('a recording file has no live edge: neither Pause nor Back to live', async () => {
    await renderControls({ hasLive: false, view: pastRange(MINUTE) });
    await expect.element(bar.getByRole('button', { name: 'Pause' })).not.toBeInTheDocument();
    await expect.element(bar.getByRole('button', { name: 'Back to live' })).not.toBeInTheDocument();
  });
});

describe('TimeControls, a past range', () => {
  test('paused on a range: its preset pressed, Back to live, export links for that range', async () => {
    const props = await renderControls({ view: pastRange(5 * MINUTE) });
    await expect.element(bar).toHaveTextContent('paused on a range');
    await expect
      .element(pastRanges.getByRole('button', { name: '5 min', exact: true }))
      .toHaveAttribute('aria-pressed', 'true');
    await expect
      .element(pastRanges.getByRole('button', { name: '1 min', exact: true }))
      .toHaveAttribute('aria-pressed', 'false');
    const exportLink = bar.getByRole('link', { name: 'Export recording' });
    await expect.element(exportLink).toHaveAttribute('href', expect.stringContaining(`to=${Math.ceil(now)}`));
    await bar.getByRole('button', { name: 'Back to live' }).click();
    expect(props.onView).toHaveBeenCalledWith({ mode: 'live' });
  });

  test('Replay starts a replay at 1× from the moment shown', async () => {
    const view = pastRange(MINUTE, now - 10_000);
    const props = await renderControls({ view, at: view.at });
    await bar.getByRole('button', { name: 'Replay' }).click();
    expect(props.onView).toHaveBeenCalledWith({ ...view, speed: 1 });
    expect(props.onPlay).toHaveBeenCalledWith(true);
  });

  test('while replaying the button pauses the replay, and the speed can be changed', async () => {
    const view = { ...pastRange(MINUTE), speed: 1 as const };
    const props = await renderControls({ view, playing: true });
    await expect.element(bar).toHaveTextContent('replaying');
    await bar.getByRole('button', { name: 'Pause replay' }).click();
    expect(props.onPlay).toHaveBeenCalledWith(false);
    await bar.getByRole('combobox').selectOptions('4×');
    expect(props.onView).toHaveBeenCalledWith({ ...view, speed: 4 });
  });

  test('on the moment slider an arrow key steps one sample and Page Up one second', async () => {
    const view = pastRange(MINUTE, now - 10_000);
    const props = await renderControls({ view, at: view.at });
    const slider = bar.getByRole('slider', { name: 'moment shown' });
    await expect
      .element(slider)
      .toHaveAccessibleDescription('Arrow keys: one sample. Page Up and Page Down: one second.');
    await slider.click();
    vi.mocked(props.onMoment).mockClear();
    await userEvent.keyboard('{ArrowRight}');
    expect(props.onStep).toHaveBeenLastCalledWith(1);
    await userEvent.keyboard('{ArrowLeft}');
    expect(props.onStep).toHaveBeenLastCalledWith(-1);
    await userEvent.keyboard('{PageUp}');
    expect(props.onMoment).toHaveBeenLastCalledWith(view.at + 1_000);
  });

  test('a range longer than 15 min draws roll-ups and offers no replay', async () => {
    await renderControls({ view: pastRange(60 * MINUTE) });
    await expect.element(bar).toHaveTextContent('1 s roll-ups: mean and max per step');
    await expect.element(bar.getByRole('button', { name: 'Replay' })).not.toBeInTheDocument();
    await expect.element(bar).toHaveTextContent('Choose 15 min or less');
  });
});

describe('TimeControls, a custom range', () => {
  test('"from" after "to" is refused in words; a valid range is shown', async () => {
    const props = await renderControls();
    const custom = bar.getByRole('button', { name: 'custom…' });
    await custom.click();
    await expect.element(custom).toHaveAttribute('aria-expanded', 'true');
    const form = bar.getByRole('form', { name: 'Custom range' });
    await form.getByLabelText('from').fill('2030-01-01T10:05:00');
    await form.getByLabelText('to').fill('2030-01-01T10:00:00');
    await form.getByRole('button', { name: 'Show' }).click();
    await expect.element(form.getByRole('alert')).toHaveTextContent('"from" must be before "to".');
    expect(props.onView).not.toHaveBeenCalled();
    await form.getByLabelText('to').fill('2030-01-01T10:10:00');
    await form.getByRole('button', { name: 'Show' }).click();
    const from = new Date('2030-01-01T10:05:00').getTime();
    const to = new Date('2030-01-01T10:10:00').getTime();
    expect(props.onView).toHaveBeenCalledWith({ mode: 'range', from, to, at: to, speed: null });
    await expect.element(form).not.toBeInTheDocument();
  });
});
