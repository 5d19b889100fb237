// JSON-RPC over one WebSocket connection, as geth's websocketCodec serves it: each text or binary message is
// read up to its first JSON value; calls run concurrently and answer as they finish; a message that is not JSON
// gets a parse error and the connection is closed (an empty message closes it without an answer); idle
// connections are pinged every 30 s and dropped when no pong comes within 30 s.
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import type { Logger } from '../logger/index.js';
import { parseErrorResponse, type RpcCore, type RpcSession } from './core.js';
import { firstJsonValue } from './json.js';
import type { PeerInfo } from './registry.js';

export const WS_PING_INTERVAL_MS = 30_000;
export const WS_PONG_TIMEOUT_MS = 30_000;
/** geth's wsDefaultReadLimit. */
export const WS_DEFAULT_READ_LIMIT = 32 * 1024 * 1024;

const OPEN = 1;

export interface WsConnection {
  readonly session: RpcSession;
  /** Starts an orderly close (1000), forcing it after `graceMs`; resolves once the connection is gone. */
  close(graceMs: number): Promise<void>;
}

export function remoteAddress(req: IncomingMessage): string {
  const addr = req.socket.remoteAddress ?? '';
  const port = req.socket.remotePort;
  if (port === undefined) return addr;
  return addr.includes(':') ? `[${addr}]:${port}` : `${addr}:${port}`;
}

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

export function httpPeer(req: IncomingMessage, transport: 'http' | 'ws'): PeerInfo {
  return {
    transport,
    remoteAddr: remoteAddress(req),
    http: {
      version: transport === 'http' ? `HTTP/${req.httpVersion}` : '',
      userAgent: header(req, 'user-agent'),
      origin: header(req, 'origin'),
      host: header(req, 'host'),
    },
  };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Serves JSON-RPC on an accepted WebSocket; `onClosed` runs once when it is gone. */
export function serveWebSocket(
  ws: WebSocket,
  req: IncomingMessage,
  core: RpcCore,
  logger: Logger,
  onClosed: () => void,
): WsConnection {
  let pingTimer: NodeJS.Timeout | undefined;
  let pongTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let resolveClosed!: () => void;
  const gone = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const schedulePing = (): void => {
    clearTimeout(pingTimer);
    if (closed) return;
    pingTimer = setTimeout(() => {
      if (ws.readyState !== OPEN) return;
      ws.ping();
      clearTimeout(pongTimer);
      pongTimer = setTimeout(() => ws.terminate(), WS_PONG_TIMEOUT_MS);
      pongTimer.unref();
      schedulePing();
    }, WS_PING_INTERVAL_MS);
    pingTimer.unref();
  };

  const send = (text: string): void => {
    if (ws.readyState !== OPEN) return;
    ws.send(text);
    schedulePing();
  };

  const session = core.session({ peer: httpPeer(req, 'ws'), send });

  ws.on('pong', () => clearTimeout(pongTimer));
  ws.on('message', (data: RawData) => {
    const parsed = firstJsonValue(toBuffer(data));
    if (parsed.kind === 'empty') {
      ws.close(1000);
      return;
    }
    if (parsed.kind === 'error') {
      send(parseErrorResponse());
      ws.close(1000);
      return;
    }
    session.handle(parsed.value, parsed.text).then(
      (outcome) => {
        if (outcome.body !== undefined) send(outcome.body);
        outcome.written();
      },
      (err: unknown) => logger.error('RPC request failed', { err: err instanceof Error ? err.message : String(err) }),
    );
  });
  ws.on('error', (err) => logger.debug('WebSocket error', { err: err.message }));
  ws.on('close', () => {
    closed = true;
    clearTimeout(pingTimer);
    clearTimeout(pongTimer);
    session.close();
    onClosed();
    resolveClosed();
  });
  schedulePing();

  return {
    session,
    close(graceMs: number): Promise<void> {
      session.close('server stopped');
      if (ws.readyState === OPEN) ws.close(1000);
      const force = setTimeout(() => ws.terminate(), graceMs);
      force.unref();
      return gone.finally(() => clearTimeout(force));
    },
  };
}
