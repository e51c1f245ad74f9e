import type { Socket as NetSocket } from 'node:net';
import WebSocket from 'ws';
import { waitUntil, withTimeout } from './polling.ts';

/**
 * A socket.io client spoken by hand over a bare websocket: engine.io v4 packets ('0' open,
 * '2'/'3' ping/pong, '4' message) carrying socket.io packets ('40' connect, '42' event, '43' ack).
 * It can send what no well-behaved client would, and it can stop reading its TCP socket.
 */
export class RawSocketIoClient {
  readonly messages: string[] = [];
  /** Bytes received, binary frames included. */
  receivedBytes = 0;
  closeCode: number | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      const size = Array.isArray(data)
        ? data.reduce((sum, chunk) => sum + chunk.length, 0)
        : data instanceof ArrayBuffer
          ? data.byteLength
          : data.length;
      this.receivedBytes += size;
      if (isBinary) return;
      const text = data.toString();
      this.messages.push(text);
      if (text === '2' && ws.readyState === WebSocket.OPEN) ws.send('3'); // engine.io ping → pong
    });
    ws.on('close', (code: number) => {
      this.closeCode = code;
    });
    ws.on('error', () => undefined);
  }

  /** Opens the websocket; with `handshake` also connects to the main namespace ('40'). */
  static async connect(port: number, handshake = true, timeoutMs = 5_000): Promise<RawSocketIoClient> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`);
    const client = new RawSocketIoClient(ws);
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      }),
      timeoutMs,
      'opening a raw websocket',
    );
    await client.waitForMessage((message) => message.startsWith('0{'), timeoutMs, 'the engine.io open packet');
    if (handshake) {
      client.send('40');
      await client.waitForMessage((message) => message.startsWith('40'), timeoutMs, 'the socket.io connect reply');
    }
    return client;
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(data: string | Buffer): void {
    if (this.isOpen) this.ws.send(data);
  }

  async waitForMessage(predicate: (message: string) => boolean, timeoutMs: number, what: string): Promise<string> {
    let found: string | undefined;
    await waitUntil(
      () => {
        found = this.messages.find(predicate);
        return found !== undefined;
      },
      timeoutMs,
      what,
      10,
    );
    return found ?? '';
  }

  /** Stops reading the TCP socket: the kernel buffers fill and the server's writes back up. */
  pauseReading(): void {
    this.tcp().pause();
  }

  resumeReading(): void {
    this.tcp().resume();
  }

  close(): void {
    this.ws.terminate();
  }

  private tcp(): NetSocket {
    const socket = (this.ws as unknown as { _socket?: NetSocket })._socket;
    if (socket === undefined) throw new Error('the websocket has no TCP socket');
    return socket;
  }
}
