// One listening socket serving JSON-RPC over HTTP and/or WebSocket, as geth's node.httpServer does (HTTP and WS
// share a port when configured on the same one). The HTTP handler stack is geth's: JWT (authenticated endpoint)
// → virtual hosts → CORS → rpc.Server.ServeHTTP (GET health check, method, size and content-type checks), with
// gzip when the client accepts it. WebSocket upgrades are checked for path prefix, JWT and origin only.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { gzip, gzipSync } from 'node:zlib';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../logger/index.js';
import { type Outcome, parseErrorResponse, RpcCore, type RpcMetrics } from './core.js';
import {
  type CorsPolicy,
  contentTypeAccepted,
  corsActualHeaders,
  corsPolicy,
  corsPreflightHeaders,
  isPreflight,
  isWebsocketUpgrade,
  type OriginPolicy,
  originAllowed,
  originPolicy,
  pathMatches,
  vhostAllowed,
  vhostSet,
} from './guards.js';
import { firstJsonValue } from './json.js';
import { checkAuthorization, JWT_SECRET_BYTES } from './jwt.js';
import type { RpcRegistry } from './registry.js';
import { httpPeer, serveWebSocket, WS_DEFAULT_READ_LIMIT, type WsConnection } from './ws.js';

/** JSON-RPC over HTTP on a listener. */
export interface HttpRpcOptions {
  /** Namespaces offered (--http.api); empty offers every registered one. Default geth's `net,web3`. */
  apis?: readonly string[] | undefined;
  /** Origins allowed cross-origin (--http.corsdomain); empty disables CORS handling. */
  corsDomains?: readonly string[] | undefined;
  /** Accepted Host names (--http.vhosts); `*` accepts all; IP addresses are always accepted. */
  vhosts?: readonly string[] | undefined;
  /** Path prefix (--http.rpcprefix): empty serves only `/`, `/` serves every path. */
  prefix?: string | undefined;
  /** Compress responses for clients that accept gzip (off on the authenticated endpoint, as in geth). */
  gzip?: boolean | undefined;
}

/** JSON-RPC over WebSocket on a listener. */
export interface WsRpcOptions {
  /** Namespaces offered (--ws.api); empty offers every registered one. Default geth's `net,web3`. */
  apis?: readonly string[] | undefined;
  /** Accepted Origin headers (--ws.origins); `*` accepts all; empty accepts http://localhost and the host name. */
  origins?: readonly string[] | undefined;
  /** Path prefix (--ws.rpcprefix): empty serves only `/`, `/` serves every path. */
  prefix?: string | undefined;
}

/** A plain HTTP handler mounted at an exact path (e.g. op-node's /healthz). */
/** A plain HTTP handler; one that returns a promise is waited for on stop(), like a running JSON-RPC request. */
export type HttpRoute = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface HttpRpcServerOptions {
  /** Listening address; `localhost` binds 127.0.0.1 (Go prefers IPv4), empty binds every interface. */
  host: string;
  /** Listening port; 0 picks a free one (see start()). */
  port: number;
  http?: HttpRpcOptions | undefined;
  ws?: WsRpcOptions | undefined;
  /** 32-byte JWT secret: every request and upgrade must carry a valid HS256 bearer token. */
  jwtSecret?: Uint8Array | undefined;
  /** Offer namespaces registered as authenticated (engine). Default: true when jwtSecret is set. */
  authenticated?: boolean | undefined;
  /** --rpc.batch-request-limit; 0 for no limit. */
  batchRequestLimit?: number | undefined;
  /** --rpc.batch-response-max-size in bytes; 0 for no limit. */
  batchResponseMaxSize?: number | undefined;
  /** Largest HTTP request body (413 beyond it). */
  bodyLimit?: number | undefined;
  /** Largest WebSocket message (the connection is closed with 1009 beyond it). */
  wsReadLimit?: number | undefined;
  /** HTTP requests running longer are answered -32002 `request timed out` (geth: write timeout − 100 ms). */
  requestTimeoutMs?: number | undefined;
  /** Keep-alive idle time of HTTP connections. */
  idleTimeoutMs?: number | undefined;
  /** On stop(), how long running HTTP requests may finish before connections are cut. */
  stopGraceMs?: number | undefined;
  /**
   * Extra plain HTTP handlers, served before the RPC handler. As in Go's ServeMux, a path ending in `/` also
   * serves everything below it, and the longest matching path wins.
   */
  routes?: Readonly<Record<string, HttpRoute>> | undefined;
  /** Label in log lines (e.g. `auth`). */
  name?: string | undefined;
}

/** geth's node defaults for the user HTTP/WS endpoints (DefaultConfig and rpc.DefaultHTTPTimeouts). */
export const httpRpcServerDefaults = {
  host: 'localhost',
  apis: ['net', 'web3'] as readonly string[],
  vhosts: ['localhost'] as readonly string[],
  corsDomains: [] as readonly string[],
  origins: [] as readonly string[],
  prefix: '',
  gzip: true,
  batchRequestLimit: 1000,
  batchResponseMaxSize: 25_000_000,
  bodyLimit: 5 * 1024 * 1024,
  wsReadLimit: WS_DEFAULT_READ_LIMIT,
  requestTimeoutMs: 29_900,
  readTimeoutMs: 30_000,
  idleTimeoutMs: 120_000,
  stopGraceMs: 1000,
} as const;

export interface RpcServerDeps {
  registry: RpcRegistry;
  logger: Logger;
  metrics?: RpcMetrics | undefined;
  /** Stops the server when aborted. */
  signal?: AbortSignal | undefined;
}

export interface RpcServerAddress {
  host: string;
  port: number;
  /** `http://host:port` (IPv6 hosts bracketed). */
  url: string;
  /** `ws://host:port<prefix>` when WebSocket is served. */
  wsUrl: string | undefined;
}

const TEXT_HEADERS = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

/** Answers like Go's http.Error: text/plain, the message and a newline. */
function textError(res: ServerResponse, status: number, message: string): void {
  const body = `${message}\n`;
  res.writeHead(status, { ...TEXT_HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The same on a raw socket (an upgrade request refused before the WebSocket handshake). */
function rejectUpgrade(socket: Duplex, status: number, message: string): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: ${TEXT_HEADERS['content-type']}\r\n` +
      `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

interface HttpPart {
  core: RpcCore;
  prefix: string;
  vhosts: ReadonlySet<string>;
  cors: CorsPolicy | undefined;
  gzip: boolean;
}

interface WsPart {
  core: RpcCore;
  prefix: string;
  origins: OriginPolicy;
  wss: WebSocketServer;
}

export class HttpRpcServer {
  readonly #opts: HttpRpcServerOptions;
  readonly #logger: Logger;
  readonly #deps: RpcServerDeps;
  readonly #http: HttpPart | undefined;
  readonly #ws: WsPart | undefined;
  readonly #secret: Uint8Array | undefined;
  readonly #bodyLimit: number;
  readonly #stopGraceMs: number;
  readonly #server: Server;
  readonly #sockets = new Set<Socket | Duplex>();
  readonly #inflight = new Set<Promise<void>>();
  readonly #inflightSessions = new Set<{ close(reason?: string): void }>();
  readonly #wsConns = new Set<WsConnection>();
  #address: RpcServerAddress | undefined;
  #stopping: Promise<void> | undefined;

  constructor(opts: HttpRpcServerOptions, deps: RpcServerDeps) {
    if (!opts.http && !opts.ws) throw new RangeError('an RPC listener needs HTTP or WebSocket enabled');
    if (opts.jwtSecret && opts.jwtSecret.length !== JWT_SECRET_BYTES) {
      throw new RangeError(`JWT secret must be ${JWT_SECRET_BYTES} bytes, got ${opts.jwtSecret.length}`);
    }
    const d = httpRpcServerDefaults;
    this.#opts = opts;
    this.#deps = deps;
    this.#logger = deps.logger.child('rpc', opts.name ? { server: opts.name } : undefined);
    this.#secret = opts.jwtSecret;
    this.#bodyLimit = opts.bodyLimit ?? d.bodyLimit;
    this.#stopGraceMs = opts.stopGraceMs ?? d.stopGraceMs;
    const authenticated = opts.authenticated ?? opts.jwtSecret !== undefined;
    const limits = {
      batchRequestLimit: opts.batchRequestLimit ?? d.batchRequestLimit,
      batchResponseMaxSize: opts.batchResponseMaxSize ?? d.batchResponseMaxSize,
    };
    const coreDeps = { logger: this.#logger, metrics: deps.metrics };
    if (opts.http) {
      const view = deps.registry.select({ modules: opts.http.apis ?? d.apis, authenticated });
      this.#http = {
        core: new RpcCore(view, { ...limits, requestTimeoutMs: opts.requestTimeoutMs ?? d.requestTimeoutMs }, coreDeps),
        prefix: opts.http.prefix ?? d.prefix,
        vhosts: vhostSet(opts.http.vhosts ?? d.vhosts),
        cors: corsPolicy(opts.http.corsDomains ?? d.corsDomains),
        gzip: opts.http.gzip ?? d.gzip,
      };
    }
    if (opts.ws) {
      const view = deps.registry.select({ modules: opts.ws.apis ?? d.apis, authenticated });
      this.#ws = {
        core: new RpcCore(view, { ...limits, requestTimeoutMs: 0 }, coreDeps),
        prefix: opts.ws.prefix ?? d.prefix,
        origins: originPolicy(opts.ws.origins ?? d.origins),
        wss: new WebSocketServer({
          noServer: true,
          maxPayload: opts.wsReadLimit ?? d.wsReadLimit,
          perMessageDeflate: false,
          clientTracking: false,
        }),
      };
    }
    this.#server = createServer({ keepAlive: true }, (req, res) => this.#onRequest(req, res));
    this.#server.keepAliveTimeout = opts.idleTimeoutMs ?? d.idleTimeoutMs;
    this.#server.headersTimeout = d.readTimeoutMs;
    this.#server.requestTimeout = d.readTimeoutMs;
    this.#server.on('connection', (socket: Socket) => this.#track(socket));
    if (this.#ws) this.#server.on('upgrade', (req, socket, head) => this.#onUpgrade(req, socket as Duplex, head));
    this.#server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      if (err.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    });
    deps.signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /** The bound address once started. */
  get address(): RpcServerAddress | undefined {
    return this.#address;
  }

  /** Starts listening; resolves with the bound address (the real port when 0 was asked). */
  async start(): Promise<RpcServerAddress> {
    if (this.#address) return this.#address;
    if (this.#stopping || this.#deps.signal?.aborted) throw new Error('RPC server was stopped');
    const host = this.#opts.host === 'localhost' ? '127.0.0.1' : this.#opts.host;
    for (const part of [this.#http, this.#ws]) {
      const unavailable = part?.core.view.unavailableModules() ?? [];
      if (unavailable.length > 0) {
        this.#logger.error('Unavailable modules in HTTP API list', {
          unavailable,
          available: this.#deps.registry.namespaces(),
        });
      }
    }
    const listening = once(this.#server, 'listening');
    if (host === '') this.#server.listen(this.#opts.port);
    else this.#server.listen(this.#opts.port, host);
    await listening;
    const info = this.#server.address() as AddressInfo;
    const hostText = info.address.includes(':') ? `[${info.address}]` : info.address;
    const endpoint = `${hostText}:${info.port}`;
    this.#address = {
      host: info.address,
      port: info.port,
      url: `http://${endpoint}`,
      wsUrl: this.#ws ? `ws://${endpoint}${this.#ws.prefix}` : undefined,
    };
    if (this.#ws) this.#logger.info('WebSocket enabled', { url: this.#address.wsUrl });
    if (this.#http) {
      this.#logger.info('HTTP server started', {
        endpoint,
        auth: this.#secret !== undefined,
        prefix: this.#http.prefix,
        cors: (this.#opts.http?.corsDomains ?? []).join(','),
        vhosts: (this.#opts.http?.vhosts ?? httpRpcServerDefaults.vhosts).join(','),
      });
    }
    return this.#address;
  }

  /**
   * Stops accepting, ends subscriptions and WebSocket connections, gives running HTTP requests up to
   * stopGraceMs, then cuts every connection left. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    if (!this.#server.listening) {
      this.#ws?.wss.close();
      return;
    }
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    for (const session of this.#inflightSessions) session.close('server stopped');
    const grace = this.#stopGraceMs;
    const wsClosed = Promise.all([...this.#wsConns].map((c) => c.close(Math.min(grace, 250))));
    if (this.#inflight.size > 0) await Promise.race([Promise.allSettled([...this.#inflight]), sleep(grace)]);
    await Promise.race([wsClosed, sleep(grace)]);
    this.#server.closeAllConnections();
    for (const socket of this.#sockets) socket.destroy();
    this.#ws?.wss.close();
    await closed;
    this.#logger.info('HTTP server stopped', { endpoint: this.#address?.url.replace('http://', '') });
  }

  #track(socket: Socket | Duplex): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
  }

  // ---- HTTP ----------------------------------------------------------------------------------------------------

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? '' : url.slice(q + 1);
    const route = this.#opts.routes && matchRoute(this.#opts.routes, path);
    if (route) {
      const done = route(req, res);
      if (done instanceof Promise) {
        this.#inflight.add(done);
        void done.finally(() => this.#inflight.delete(done));
      }
      return;
    }
    const http = this.#http;
    if (!http || !pathMatches(path, http.prefix) || this.#stopping) {
      res.writeHead(404, { 'content-length': 0 });
      res.end();
      return;
    }
    if (this.#secret) {
      const reason = checkAuthorization(headerValue(req, 'authorization'), this.#secret);
      if (reason !== undefined) {
        textError(res, 401, reason);
        return;
      }
    }
    if (!vhostAllowed(http.vhosts, headerValue(req, 'host'))) {
      textError(res, 403, 'invalid host specified');
      return;
    }
    const method = req.method ?? 'GET';
    if (http.cors) {
      if (isPreflight(method, req.headers)) {
        corsPreflightHeaders(http.cors, req.headers, (k, v) => res.setHeader(k, v));
        res.writeHead(200, { 'content-length': 0 });
        res.end();
        return;
      }
      corsActualHeaders(http.cors, method, req.headers, (k, v) => res.setHeader(k, v));
    }
    const lengthHeader = headerValue(req, 'content-length');
    const chunked = headerValue(req, 'transfer-encoding') !== undefined;
    const contentLength = lengthHeader !== undefined ? Number(lengthHeader) : chunked ? -1 : 0;
    // Dumb empty GET requests are health checks (geth keeps them for AWS load balancers).
    if (method === 'GET' && contentLength === 0 && query === '') {
      res.writeHead(200, { 'content-length': 0 });
      res.end();
      return;
    }
    if (method === 'PUT' || method === 'DELETE') {
      textError(res, 405, 'method not allowed');
      return;
    }
    if (contentLength > this.#bodyLimit) {
      res.shouldKeepAlive = false;
      textError(res, 413, `content length too large (${contentLength}>${this.#bodyLimit})`);
      return;
    }
    if (method !== 'OPTIONS' && !contentTypeAccepted(headerValue(req, 'content-type'))) {
      textError(res, 415, 'invalid content type, only application/json is supported');
      return;
    }
    const acceptGzip = http.gzip && (headerValue(req, 'accept-encoding') ?? '').includes('gzip');
    const done = this.#readAndServe(req, res, http.core, acceptGzip);
    this.#inflight.add(done);
    void done.finally(() => this.#inflight.delete(done));
  }

  async #readAndServe(req: IncomingMessage, res: ServerResponse, core: RpcCore, acceptGzip: boolean): Promise<void> {
    let body: Buffer;
    try {
      body = await readBody(req, this.#bodyLimit);
    } catch {
      res.destroy();
      return;
    }
    if (body.length >= this.#bodyLimit) res.shouldKeepAlive = false; // geth reads no further than the limit
    res.setHeader('content-type', 'application/json');
    const parsed = firstJsonValue(body);
    if (parsed.kind === 'empty') {
      res.writeHead(200, { 'content-length': 0 });
      res.end();
      return;
    }
    if (parsed.kind === 'error') {
      await this.#write(res, { body: parseErrorResponse(), isError: true, written: () => {} }, false);
      return;
    }
    const session = core.session({ peer: httpPeer(req, 'http') });
    this.#inflightSessions.add(session);
    const onClose = (): void => {
      if (!res.writableFinished) session.close('client went away');
    };
    res.on('close', onClose);
    try {
      const outcome = await session.handle(parsed.value, parsed.text);
      if (res.destroyed) return;
      await this.#write(res, outcome, acceptGzip);
      outcome.written();
    } catch (err) {
      this.#logger.error('RPC request failed', { err: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) res.writeHead(500, { 'content-length': 0 });
      res.end();
    } finally {
      res.off('close', onClose);
      this.#inflightSessions.delete(session);
      session.close();
    }
  }

  async #write(res: ServerResponse, outcome: Outcome, acceptGzip: boolean): Promise<void> {
    if (outcome.body === undefined) {
      res.writeHead(200, { 'content-length': 0 });
      res.end();
      return;
    }
    // geth never compresses error answers written outside normal processing (its transfer-encoding identity mark).
    if (!acceptGzip || outcome.isError) {
      res.writeHead(200, { 'content-length': Buffer.byteLength(outcome.body) });
      res.end(outcome.body);
      return;
    }
    const payload = await gzipped(outcome.body);
    if (res.destroyed) return;
    res.writeHead(200, { 'content-length': payload.length, 'content-encoding': 'gzip' });
    res.end(payload);
  }

  // ---- WebSocket -----------------------------------------------------------------------------------------------

  #onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const ws = this.#ws as WsPart;
    if (this.#stopping) {
      socket.destroy();
      return;
    }
    if (!isWebsocketUpgrade(req.headers)) {
      rejectUpgrade(socket, 400, 'bad request');
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (!pathMatches(path, ws.prefix)) {
      rejectUpgrade(socket, 404, 'not found');
      return;
    }
    if (this.#secret) {
      const reason = checkAuthorization(headerValue(req, 'authorization'), this.#secret);
      if (reason !== undefined) {
        rejectUpgrade(socket, 401, reason);
        return;
      }
    }
    if (!originAllowed(ws.origins, headerValue(req, 'origin'))) {
      this.#logger.warn('Rejected WebSocket connection', { origin: headerValue(req, 'origin') });
      rejectUpgrade(socket, 403, 'Forbidden');
      return;
    }
    ws.wss.handleUpgrade(req, socket, head, (conn: WebSocket) => {
      if (this.#stopping) {
        conn.terminate();
        return;
      }
      const served = serveWebSocket(conn, req, ws.core, this.#logger, () => this.#wsConns.delete(served));
      this.#wsConns.add(served);
    });
  }
}

/** The route for `path`: an exact match, else the longest subtree route (`/x/`) above it. */
export function matchRoute(routes: Readonly<Record<string, HttpRoute>>, path: string): HttpRoute | undefined {
  const exact = routes[path];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(routes)) {
    if (key.endsWith('/') && path.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : routes[best];
}

/**
 * Answers up to this size are compressed right here: a typical answer (a balance, a call's result) takes ~0.1 ms
 * synchronously, where the asynchronous stream costs several times that in this thread's CPU (stream set-up, a
 * thread-pool hop) and, during a block import on 2 cores, hands the core to another thread. Larger answers go to
 * the thread pool as before.
 */
const GZIP_INLINE_MAX = 64 * 1024;

/** gzip of an answer; small ones with a window sized to them (the output is the same for bodies that fit it). */
function gzipped(body: string): Promise<Buffer> {
  const bytes = Buffer.byteLength(body);
  if (bytes <= GZIP_INLINE_MAX) {
    const windowBits = Math.max(9, Math.min(15, Math.ceil(Math.log2(bytes + 262))));
    return Promise.resolve(gzipSync(body, { windowBits, memLevel: windowBits <= 12 ? 4 : 8 }));
  }
  return new Promise<Buffer>((resolve, reject) => gzip(body, (err, out) => (err ? reject(err) : resolve(out))));
}

/** Reads a request body, keeping at most `limit` bytes (geth reads through an io.LimitReader). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      req.off('data', onData);
      req.off('end', finish);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      const room = limit - size;
      if (chunk.length < room) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      chunks.push(chunk.subarray(0, room));
      size = limit;
      finish();
    };
    const onError = (err: Error): void => reject(err);
    const onClose = (): void => {
      if (!req.complete) reject(new Error('request aborted'));
    };
    req.on('data', onData);
    req.on('end', finish);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
