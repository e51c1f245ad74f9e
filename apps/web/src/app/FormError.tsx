import type { ReactNode } from 'react';

/** Why a form's input was refused, announced at once (role alert); nothing when there is no error. */
export function FormError({ error, className }: { error: string | null; className?: string }): ReactNode {
  if (error === null) return null;
  return (
    <span className={className === undefined ? 'status-bad' : `status-bad ${className}`} role="alert">
      {error}
    </span>
  );
}
