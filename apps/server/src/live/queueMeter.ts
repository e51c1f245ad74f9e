/**
 * How many packets engine.io holds for a viewer that it could not write yet, counted from its
 * public events rather than read from its private `writeBuffer`: every packet is announced with
 * `packetCreate` before it is buffered, and every flush hands the transport the whole buffer
 * (`flush`, with that buffer). A viewer that stops reading stops being flushed, so its count grows.
 */

/** The part of an engine.io socket this needs: its documented events. */
export interface EngineSocketEvents {
  on(event: 'packetCreate', listener: (packet: unknown) => void): unknown;
  on(event: 'flush', listener: (buffer: readonly unknown[]) => void): unknown;
}

const pending = new WeakMap<object, { count: number }>();

/** Starts counting a connection's queued packets; call once, when it connects. */
export function watchQueue(conn: EngineSocketEvents): void {
  const meter = { count: 0 };
  pending.set(conn, meter);
  conn.on('packetCreate', () => {
    meter.count++;
  });
  conn.on('flush', (buffer) => {
    meter.count = Math.max(0, meter.count - buffer.length);
  });
}

/** Packets created for a socket and not yet handed to its transport (0 when not watched). */
export function queuedPackets(socket: { conn: object }): number {
  return pending.get(socket.conn)?.count ?? 0;
}
