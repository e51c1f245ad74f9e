import type { Identity, Role } from '@aioscope/spec';

/** What the operator role is needed for, named once for the 403 and for the page. */
const OPERATOR_ACTIONS = 'starting or cancelling lab runs and races (they write to the watched server)';

/** A proxy's user is an operator when --operators names them; every other name views only. */
export function roleOf(user: string, operators: ReadonlySet<string>): Role {
  return operators.has(user) ? 'operator' : 'viewer';
}

/** --operators: names separated by commas, each trimmed; empty entries dropped. */
export function parseOperators(values: readonly string[]): string[] {
  return values
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** Why this identity may not do what writes to a watched server, or null when it may. */
export function operatorOnlyReason(user: string | null, role: Role): string | null {
  if (role === 'operator') return null;
  const who = user === null ? 'you are' : `${user} is`;
  return `Needs the operator role: ${OPERATOR_ACTIONS}; ${who} a viewer (operators are named with --operators).`;
}

export function identity(user: string | null, role: Role, via: Identity['via']): Identity {
  return { user, role, via, operatorOnly: operatorOnlyReason(user, role) };
}
