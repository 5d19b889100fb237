// JSON-RPC over a Unix socket, as geth's IPC endpoint: the socket file is created mode 0600 (its directory with
// 0751) after removing any stale file; requests are JSON values one after another on the stream, separated by
// whitespace or nothing; each answer is written as it completes, followed by a newline (geth's codec does the
// same); a syntax error is answered with a parse error and the connection is closed.
import { chmodSync, mkdirSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Logger } from '../logger/index.js';
import { parseErrorResponse, RpcCore, type RpcMetrics, type RpcSession } from './core.js';
import { JsonStreamSplitter } from './json.js';
import type { RpcRegistry } from './registry.js';

export interface IpcRpcServerOptions {
  /** Socket path (geth: --ipcpath inside the data directory unless absolute). */
  path: string;
  /** Namespaces offered; undefined or empty offers every registered one (geth serves all APIs on IPC). */
  apis?: readonly string[] | undefined;
  /** Offer namespaces registered as authenticated (default true, as geth's IPC serves every API). */
  authenticated?: boolean | undefined;
  batchRequestLimit?: number | undefined;
  batchResponseMaxSize?: number | undefined;
  /** Largest single JSON value accepted; the connection is closed beyond it. */
  maxMessageBytes?: number | undefined;
  /** On stop(), how long a connection may take to close before it is destroyed. */
  stopGraceMs?: number | undefined;
}

export const ipcRpcServerDefaults = {
  batchRequestLimit: 1000,
  batchResponseMaxSize: 25_000_000,
  maxMessageBytes: 128 * 1024 * 1024,
  stopGraceMs: 250,
} as const;

export interface IpcRpcServerDeps {
  registry: RpcRegistry;
  logger: Logger;
  metrics?: RpcMetrics | undefined;
  signal?: AbortSignal | undefined;
}

/** sockaddr_un's path size on Linux (including the terminating NUL). */
const MAX_UNIX_PATH = 108;

export class IpcRpcServer {
  readonly #opts: IpcRpcServerOptions;
  readonly #logger: Logger;
  readonly #core: RpcCore;
  readonly #server: Server;
  readonly #conns = new Map<Socket, RpcSession>();
  readonly #signal: AbortSignal | undefined;
  #started = false;
  #stopping: Promise<void> | undefined;

  constructor(opts: IpcRpcServerOptions, deps: IpcRpcServerDeps) {
    const d = ipcRpcServerDefaults;
    this.#opts = opts;
    this.#logger = deps.logger.child('rpc', { server: 'ipc' });
    const view = deps.registry.select({ modules: opts.apis, authenticated: opts.authenticated ?? true });
    this.#core = new RpcCore(
      view,
      {
        batchRequestLimit: opts.batchRequestLimit ?? d.batchRequestLimit,
        batchResponseMaxSize: opts.batchResponseMaxSize ?? d.batchResponseMaxSize,
        requestTimeoutMs: 0,
      },
      { logger: this.#logger, metrics: deps.metrics },
    );
    this.#server = createServer((socket) => this.#serve(socket));
    this.#signal = deps.signal;
    deps.signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  get path(): string {
    return this.#opts.path;
  }

  /** Creates the socket file and starts accepting; resolves with its path. */
  async start(): Promise<string> {
    if (this.#started) return this.#opts.path;
    if (this.#stopping || this.#signal?.aborted) throw new Error('IPC server was stopped');
    const path = this.#opts.path;
    if (Buffer.byteLength(path) + 1 > MAX_UNIX_PATH) {
      this.#logger.warn(`The ipc endpoint is longer than ${MAX_UNIX_PATH - 1} characters. `, { endpoint: path });
    }
    mkdirSync(dirname(path), { recursive: true, mode: 0o751 });
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.#server.once('error', onError);
      this.#server.listen(path, () => {
        this.#server.off('error', onError);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    this.#started = true;
    this.#logger.info('IPC endpoint opened', { url: path });
    return path;
  }

  /** Closes the listener (removing the socket file) and every connection. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    if (!this.#started) return;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const [socket, session] of this.#conns) {
      session.close('server stopped');
      socket.end();
    }
    const grace = this.#opts.stopGraceMs ?? ipcRpcServerDefaults.stopGraceMs;
    const timer = setTimeout(() => {
      for (const socket of this.#conns.keys()) socket.destroy();
    }, grace);
    await closed;
    clearTimeout(timer);
    this.#logger.info('IPC endpoint closed', { url: this.#opts.path });
  }

  #serve(socket: Socket): void {
    if (this.#stopping) {
      socket.destroy();
      return;
    }
    const send = (text: string): void => {
      if (!socket.destroyed && socket.writable) socket.write(`${text}\n`);
    };
    const session = this.#core.session({ peer: { transport: 'ipc', remoteAddr: '' }, send });
    this.#conns.set(socket, session);
    const splitter = new JsonStreamSplitter(this.#opts.maxMessageBytes ?? ipcRpcServerDefaults.maxMessageBytes);
    const fail = (): void => {
      send(parseErrorResponse());
      socket.end();
      socket.destroySoon();
    };
    socket.on('data', (chunk: Buffer) => {
      if (session.closed) return;
      let texts: string[];
      try {
        texts = splitter.push(chunk);
      } catch {
        session.close('parse error');
        fail();
        return;
      }
      for (const text of texts) {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          session.close('parse error');
          fail();
          return;
        }
        session.handle(value, text).then(
          (outcome) => {
            if (outcome.body !== undefined) send(outcome.body);
            outcome.written();
          },
          (err: unknown) =>
            this.#logger.error('RPC request failed', { err: err instanceof Error ? err.message : String(err) }),
        );
      }
    });
    socket.on('error', (err) => this.#logger.debug('IPC connection error', { err: err.message }));
    socket.on('close', () => {
      session.close();
      this.#conns.delete(socket);
    });
  }
}
