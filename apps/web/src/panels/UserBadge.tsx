import type { ReactNode } from 'react';
import { useIdentity } from '../api/identity.ts';

/**
 * The auth proxy's user and role, in the header. Nothing with the token or on loopback: there is
 * no name to show, and everyone who got in is an operator.
 */
export function UserBadge(): ReactNode {
  const identity = useIdentity().data;
  if (identity?.user === undefined || identity.user === null) return null;
  return (
    <span
      className={`user-badge user-${identity.role}`}
      data-testid="user-name"
      title={identity.operatorOnly ?? 'operator: may start and cancel lab runs and races'}
    >
      <span className="user-name">{identity.user}</span> · {identity.role}
    </span>
  );
}
