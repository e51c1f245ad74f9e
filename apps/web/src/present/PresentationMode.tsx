import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { RaceReplay } from '../race/RaceReplay.tsx';
import { buildStories, type StoryInputs } from './stories.ts';
import './present.css';

/**
 * Presentation mode: one story per screen in large, high-contrast type, for the back of a room.
 * Full screen through the Fullscreen API when the browser allows it; otherwise (or when it is
 * refused) the same element is a fixed overlay over the page. ←/→ (and ↑/↓, Page Up/Down) move
 * between stories on every screen, as the buttons say; Escape leaves (the browser's own Escape
 * leaves full screen, which closes the mode too).
 */
export function PresentationMode({ inputs, onClose }: { inputs: StoryInputs; onClose: () => void }): ReactNode {
  const stories = useMemo(() => buildStories(inputs), [inputs]);
  // A race opened from the lab starts on the race; the header starts on the first live story.
  const [index, setIndex] = useState(() => (inputs.frames === undefined ? Math.max(0, stories.length - 1) : 0));
  const root = useRef<HTMLDivElement>(null);
  const story = stories[Math.min(index, stories.length - 1)];

  // The race screen takes the keyboard (Space, , and .); the other screens leave it on the mode itself.
  useEffect(() => {
    const target = story?.id === 'race' ? root.current?.querySelector<HTMLElement>('.race-replay') : root.current;
    // Without scrolling: on a small screen focusing the race would scroll the story's title away.
    target?.focus({ preventScroll: true });
  }, [story?.id]);

  useEffect(() => {
    // Focus is placed by the story effect above (the race screen takes it): not here, or it would be stolen back.
    const element = root.current;
    if (element?.requestFullscreen !== undefined) element.requestFullscreen().catch(() => undefined);
    const onFullscreenChange = (): void => {
      if (document.fullscreenElement === null) onClose();
    };
    document.addEventListener('fullscreenchange', onFullscreenChange);
    return () => {
      document.removeEventListener('fullscreenchange', onFullscreenChange);
      if (document.fullscreenElement !== null) void document.exitFullscreen().catch(() => undefined);
    };
  }, [onClose]);

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
      return;
    }
    // The same keys on every screen, the race's too (it steps frames with , and . here).
    const next = ['ArrowRight', 'ArrowDown', 'PageDown'].includes(event.key);
    const previous = ['ArrowLeft', 'ArrowUp', 'PageUp'].includes(event.key);
    if (next || previous) {
      event.preventDefault();
      setIndex((at) => Math.max(0, Math.min(stories.length - 1, at + (next ? 1 : -1))));
    }
  };

  return (
    <div
      className="present"
      role="dialog"
      aria-modal="true"
      aria-label="presentation mode"
      ref={root}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      data-testid="presentation"
    >
      <header className="present-head">
        <h2>{story?.title ?? 'Nothing to present yet'}</h2>
        <span className="present-source">{story?.source ?? ''}</span>
        <span className="present-position">
          {stories.length === 0 ? '' : `${Math.min(index, stories.length - 1) + 1} / ${stories.length}`}
        </span>
      </header>
      <main className="present-body">
        {story === undefined ? (
          <p className="present-caption">Start the dashboard or run a race: presentation mode shows their figures.</p>
        ) : story.id === 'race' && inputs.race !== undefined ? (
          <div className="present-race">
            <RaceReplay race={inputs.race} presenting />
          </div>
        ) : (
          <>
            <div className="present-figures">
              {story.figures.map((figure) => (
                <div className="present-figure" key={figure.label}>
                  <span className="present-value">{figure.value}</span>
                  <span className="present-label">{figure.label}</span>
                </div>
              ))}
            </div>
            <p className="present-caption">{story.caption}</p>
          </>
        )}
      </main>
      <footer className="present-nav">
        <button type="button" onClick={() => setIndex((at) => Math.max(0, at - 1))} disabled={index === 0}>
          ← previous story
        </button>
        <button type="button" onClick={onClose}>
          leave (Esc)
        </button>
        <button
          type="button"
          onClick={() => setIndex((at) => Math.min(stories.length - 1, at + 1))}
          disabled={index >= stories.length - 1}
        >
          next story →
        </button>
      </footer>
    </div>
  );
}
