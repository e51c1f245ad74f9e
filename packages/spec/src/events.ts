import { z } from 'zod';
import type { IoStatDelta, LiveFrame, ProcessView } from './frames.ts';
import type { TargetStatus } from './targets.ts';

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

export type JoinTargetReply = { ok: true } | { ok: false; error: string };

/** Sent once on join: recent history from the server's ring buffers; replaces the client's state. */
export interface LiveSnapshot {
  targetId: string;
  frames: LiveFrame[];
  ioDeltas: IoStatDelta[];
  status: TargetStatus;
  processes: ProcessView[];
}

export interface FrameEvent {
  targetId: string;
  frame: LiveFrame;
}

export interface IoDeltaEvent {
  targetId: string;
  delta: IoStatDelta;
}

export interface StatusEvent {
  targetId: string;
  status: TargetStatus;
}

export interface ProcessesEvent {
  targetId: string;
  /** Server clock of the sample the list comes from, epoch ms. */
  t: number;
  processes: ProcessView[];
}

export interface ServerToClientEvents {
  processes: (payload: ProcessesEvent) => void;
  snapshot: (payload: LiveSnapshot) => void;
  frame: (payload: FrameEvent) => void;
  ioDelta: (payload: IoDeltaEvent) => void;
  status: (payload: StatusEvent) => void;
}

export interface ClientToServerEvents {
  joinTarget: (payload: unknown, reply: (result: JoinTargetReply) => void) => void;
  leaveTarget: (payload: unknown) => void;
}
