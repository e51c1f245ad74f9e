import { io as connectSocket } from 'socket.io-client';

/** Opens a socket once: resolves with 'connected' or `refused: <the connect error>`, whichever comes first. */
export function trySocket(url: string, extraHeaders: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connectSocket(url, { transports: ['websocket'], reconnection: false, extraHeaders });
    socket.on('connect', () => {
      socket.disconnect();
      resolve('connected');
    });
    socket.on('connect_error', (error) => {
      socket.disconnect();
      resolve(`refused: ${error.message}`);
    });
  });
}
