import type { ClientConfig } from 'pg';
import type { TargetKind } from '@aioscope/spec';

/**
 * A server to watch, as only the server side knows it. `clientConfig` holds credentials and must
 * never be serialised to a browser: the public face of a target is TargetSummary.
 */
export interface TargetDefinition {
  id: string;
  /** Display name without password, e.g. "embedded PostgreSQL 18" or "app@db1:5432/prod". */
  name: string;
  kind: TargetKind;
  clientConfig: ClientConfig;
}
