import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { LiveWindowSummary } from '@aioscope/core';
import type { LiveFrame, Race, TargetSummary } from '@aioscope/spec';
import { isTyping } from '../app/isTyping.ts';
import { lazyComponent } from '../app/lazyComponent.tsx';
import './present.css';

/** Presentation mode (and the race replay it can show) is fetched when first opened. */
const PresentationMode = lazyComponent(
  'presentation mode',
  () => import('./PresentationMode.tsx'),
  (module) => module.PresentationMode,
  () => null,
);

export interface PresentButtonProps {
  /** The dashboard's newest frames and their summary, for the live stories (App passes them). */
  frames?: readonly LiveFrame[];
  summary?: LiveWindowSummary;
  target?: TargetSummary | undefined;
  /** A finished race: its stories, and the race screen. */
  race?: Race;
}

/*
 * The `f` key opens presentation mode from whichever button was mounted last (a race view opened
 * over the dashboard presents the race; without one, the header's button presents live). One
 * document listener serves them all, so two buttons never both open.
 */
const openers: (() => void)[] = [];
function onDocumentKey(event: KeyboardEvent): void {
  if (event.key !== 'f' || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
  const open = openers[openers.length - 1];
  if (open === undefined) return;
  event.preventDefault();
  open();
}

function useShortcut(open: () => void): void {
  useEffect(() => {
    if (openers.length === 0) document.addEventListener('keydown', onDocumentKey);
    openers.push(open);
    return () => {
      openers.splice(openers.lastIndexOf(open), 1);
      if (openers.length === 0) document.removeEventListener('keydown', onDocumentKey);
    };
  }, [open]);
}

/** "present (f)": opens presentation mode over the page. Place it in the header with the live frames. */
export function PresentButton({ frames, summary, target, race }: PresentButtonProps): ReactNode {
  const [open, setOpen] = useState(false);
  const show = useCallback(() => setOpen(true), []);
  const close = useCallback(() => setOpen(false), []);
  useShortcut(show);
  // Live stories follow the frames App passes; the mode rebuilds its stories when they change.
  const inputs = useMemo(
    () => ({
      ...(frames === undefined ? {} : { frames }),
      ...(summary === undefined ? {} : { summary }),
      ...(race === undefined ? {} : { race }),
    }),
    [frames, summary, race],
  );
  return (
    <>
      <button
        type="button"
        className="present-button"
        onClick={show}
        aria-keyshortcuts="f"
        aria-label={`present${target === undefined ? '' : ` ${target.name}`} full screen (f)`}
      >
        present (f)
      </button>
      {open ? <PresentationMode inputs={inputs} onClose={close} /> : null}
    </>
  );
}
