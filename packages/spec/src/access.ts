import { z } from 'zod';

/**
 * Who is asking (GET /api/me). Viewers watch; operators may also start what writes to a watched
 * server (lab runs, races, cancelling them), where the lab is allowed at all.
 */
export const roleSchema = z.enum(['viewer', 'operator']);
export type Role = z.infer<typeof roleSchema>;

export const identitySchema = z.object({
  /** The name the auth proxy sent; null with the token or on loopback, where there is no name. */
  user: z.string().nullable(),
  role: roleSchema,
  /** How the request was let in: this machine only, the shared token, or the auth proxy's header. */
  via: z.enum(['loopback', 'token', 'proxy']),
  /** Why this user may not start lab runs or races, in a sentence; null for an operator. */
  operatorOnly: z.string().nullable(),
});
export type Identity = z.infer<typeof identitySchema>;
