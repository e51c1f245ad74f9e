import { z } from 'zod';
import { ioStatDeltaSchema, liveFrameSchema, processViewSchema } from './frames.ts';
import { targetStatusSchema } from './targets.ts';

/** Longest target id a client may send; ids are short slugs chosen by the server. */
export const MAX_TARGET_ID_LENGTH = 64;

export const joinTargetRequestSchema = z
  .object({
    targetId: z
      .string()
      .min(1)
      .max(MAX_TARGET_ID_LENGTH)
      .regex(/^[a-z0-9-]+$/, 'target ids are lowercase letters, digits and dashes'),
  })
  .strict();
export type JoinTargetRequest = z.infer<typeof joinTargetRequestSchema>;

/** A replica's name (--replica-name): what a load balancer routes `?replica=NAME` by. */
export const replicaNameSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z0-9-]+$/, 'replica names are lowercase letters, digits and dashes');

/**
 * The server's acknowledgement of joinTarget. With named replicas (--replica-name): `replica` is the
 * one that serves this socket, `owner` the one that samples the target; a page on another replica
 * than the owner may reconnect with `?replica=OWNER` (the load balancer routes by it).
 */
export const joinTargetReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), replica: replicaNameSchema.optional(), owner: replicaNameSchema.optional() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type JoinTargetReply = z.infer<typeof joinTargetReplySchema>;

/** Sent once on join: the recent frames and deltas of the server's ring buffers; replaces the client's state. */
export const liveSnapshotSchema = z.object({
  targetId: z.string(),
  frames: z.array(liveFrameSchema),
  ioDeltas: z.array(ioStatDeltaSchema),
  status: targetStatusSchema,
  processes: z.array(processViewSchema),
});
export type LiveSnapshot = z.infer<typeof liveSnapshotSchema>;

export const frameEventSchema = z.object({
  targetId: z.string(),
  frame: liveFrameSchema,
});
export type FrameEvent = z.infer<typeof frameEventSchema>;

export const ioDeltaEventSchema = z.object({
  targetId: z.string(),
  delta: ioStatDeltaSchema,
});
export type IoDeltaEvent = z.infer<typeof ioDeltaEventSchema>;

export const statusEventSchema = z.object({
  targetId: z.string(),
  status: targetStatusSchema,
});
export type StatusEvent = z.infer<typeof statusEventSchema>;

export const processesEventSchema = z.object({
  targetId: z.string(),
  /** Server clock of the sample the list comes from, epoch ms. */
  t: z.number(),
  processes: z.array(processViewSchema),
});
export type ProcessesEvent = z.infer<typeof processesEventSchema>;

/**
 * A target's sampling moved to the named replica (a handover after a kill, or a rebalance), sent to
 * its viewers on every replica by the new owner once it samples the target.
 */
export const ownerEventSchema = z.object({ targetId: z.string(), owner: replicaNameSchema });
export type OwnerEvent = z.infer<typeof ownerEventSchema>;

export interface ServerToClientEvents {
  owner: (payload: OwnerEvent) => void;
  processes: (payload: ProcessesEvent) => void;
  snapshot: (payload: LiveSnapshot) => void;
  frame: (payload: FrameEvent) => void;
  ioDelta: (payload: IoDeltaEvent) => void;
  status: (payload: StatusEvent) => void;
}

export type ServerToClientEvent = keyof ServerToClientEvents;
export type ServerToClientPayload<E extends ServerToClientEvent> = Parameters<ServerToClientEvents[E]>[0];

/**
 * The schema each server→client event is checked with where it is received. Typed over
 * ServerToClientEvents, so an event added there without a schema here does not compile.
 */
export const serverToClientSchemas: { [E in ServerToClientEvent]: z.ZodType<ServerToClientPayload<E>> } = {
  processes: processesEventSchema,
  snapshot: liveSnapshotSchema,
  frame: frameEventSchema,
  ioDelta: ioDeltaEventSchema,
  status: statusEventSchema,
  owner: ownerEventSchema,
};

export interface ClientToServerEvents {
  joinTarget: (payload: unknown, reply: (result: JoinTargetReply) => void) => void;
  leaveTarget: (payload: unknown) => void;
}
