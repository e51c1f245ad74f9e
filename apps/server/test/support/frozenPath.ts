import net from 'node:net';

/**
 * A TCP relay on a loopback port in front of a server, whose path can go dead: frozen, it passes
 * nothing either way and closes nothing, as a network that drops every packet does (a cable
 * pulled, a firewall that drops). Both ends keep their sockets open and hear nothing; only a
 * timeout of their own finds it out.
 */
export interface FreezablePath {
  /** The relay's port on 127.0.0.1. */
  port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezablePath(targetPort: number): Promise<FreezablePath> {
  const sockets = new Set<net.Socket>();
  let frozen = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream);
    upstream.pipe(client);
    // After pipe(), which resumes its source: a connection made while frozen carries nothing either.
    if (frozen) for (const socket of [client, upstream]) socket.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  return {
    port: address.port,
    freeze: () => {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw: () => {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
