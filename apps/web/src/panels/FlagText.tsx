import { Fragment, type ReactNode } from 'react';
import './FlagText.css';

/** A command-line flag in a sentence the server wrote: `--allow-lab`, `--operators`. */
const FLAG = /(--[a-z][a-z0-9-]*)/g;

/**
 * A server's sentence with each flag in it as code that does not wrap: a browser breaks lines
 * after hyphens, which split "--allow-lab" into "--" and "allow-lab" on a phone. The text itself
 * is unchanged, so a copied flag still works in a shell.
 */
export function FlagText({ text }: { text: string }): ReactNode {
  return text.split(FLAG).map((part, index) =>
    index % 2 === 1 ? (
      <code key={index} className="flag">
        {part}
      </code>
    ) : (
      <Fragment key={index}>{part}</Fragment>
    ),
  );
}
