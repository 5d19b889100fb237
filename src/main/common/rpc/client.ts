// The JSON-RPC client tern-node uses for layer 1 and the engine (and tests use against tern-exec): HTTP(S) or
// WebSocket by URL scheme; single calls and batches; a timeout per request; a fresh HS256 token per request
// (HTTP) or per connection (WebSocket) when a JWT secret is given, as geth's client does; custom headers; a retry
// hook. Remote JSON-RPC errors are raised as RpcError with the server's code, message and data; failures below
// JSON-RPC (timeouts, HTTP status, broken connections, malformed answers) as RpcTransportError.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { gunzip, gunzipSync } from 'node:zlib';
import { type RawData, WebSocket } from 'ws';
import {
  notificationsUnsupported,
  RpcError,
  type RpcErrorObject,
  RpcTransportError,
  RpcTransportErrorCode,
} from '../../protocol/jsonrpc/errors.js';
import type { Logger } from '../logger/index.js';
import { signJwt } from './jwt.js';

export interface RpcClientOptions {
  /** `http://`, `https://`, `ws://` or `wss://` endpoint. */
  url: string;
  /** Time allowed per request (a batch is one request), including connecting; 0 for none. */
  timeoutMs?: number | undefined;
  /** 32-byte secret: every HTTP request (every WebSocket connection) carries a fresh HS256 bearer token. */
  jwtSecret?: Uint8Array | undefined;
  /** Extra headers on every HTTP request and WebSocket handshake. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Decides whether a failed request is tried again; default: never. */
  retry?: RetryPolicy | undefined;
  /** Largest WebSocket message accepted. */
  wsMaxPayload?: number | undefined;
}

export const rpcClientDefaults = {
  timeoutMs: 10_000,
  wsMaxPayload: 128 * 1024 * 1024,
} as const;

export interface RpcClientDeps {
  logger?: Logger | undefined;
  /** Closes the client when aborted. */
  signal?: AbortSignal | undefined;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the client's timeout for this request. */
  timeoutMs?: number | undefined;
}

export interface BatchRequest {
  method: string;
  params?: readonly unknown[] | undefined;
}

export type BatchResult<T = unknown> = { ok: true; value: T } | { ok: false; error: RpcError | RpcTransportError };

export interface RetryInfo {
  /** Attempts made so far (1 after the first failure). */
  attempt: number;
  error: unknown;
  /** Method name, or `batch` for a batch. */
  method: string;
}

/** Returns the delay in ms before the next attempt, or undefined to give up and raise the error. */
export type RetryPolicy = (info: RetryInfo) => number | undefined;

/**
 * Retries temporary transport failures (timeouts, refused or broken connections, HTTP 429 and 5xx) with
 * exponential backoff; JSON-RPC errors are answers and are never retried.
 */
export function retryTransient(
  opts: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number } = {},
): RetryPolicy {
  const maxAttempts = opts.maxAttempts ?? 3;
  const base = opts.baseDelayMs ?? 100;
  const max = opts.maxDelayMs ?? 2000;
  return ({ attempt, error }) => {
    if (attempt >= maxAttempts) return undefined;
    if (!(error instanceof RpcTransportError) || error.severity !== 'temporary') return undefined;
    return Math.min(max, base * 2 ** (attempt - 1));
  };
}

export interface ClientSubscription {
  readonly id: string;
  /** Asks the server to end the subscription; no notifications are delivered after this is called. */
  unsubscribe(): Promise<boolean>;
}

export interface SubscribeOptions extends CallOptions {
  /** Called when the subscription ends because the connection closed. */
  onError?: ((err: Error) => void) | undefined;
}

interface Transport {
  /** Sends a request body whose call ids are `ids`; resolves with the parsed answer. */
  request(body: string, ids: readonly number[], signal: AbortSignal, hooks?: RequestHooks): Promise<unknown>;
  close(): Promise<void>;
}

interface RequestHooks {
  /** Runs synchronously when the (single) answer arrives, before the promise resolves. */
  onAnswer?(answer: unknown): void;
}

/** Encodes params: bigint as a quantity, Uint8Array as 0x data (handlers' wire formats). */
function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `0x${value.toString(16)}`;
  if (value instanceof Uint8Array)
    return `0x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  return value;
}

/**
 * A call's params encoded ahead of time as a JSON array (a caller that sends the same large params again, or
 * encodes off its critical path): sent as they are.
 */
export class EncodedParams {
  constructor(readonly json: string) {}
}

function encodeCall(id: number, method: string, params: readonly unknown[] | EncodedParams | undefined): string {
  const json = params instanceof EncodedParams ? params.json : JSON.stringify(params ?? [], replacer);
  return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${json}}`;
}

/**
 * Compressed answers up to this size are inflated right here: the typical answer (a balance, a call's result)
 * takes a few µs synchronously, where the asynchronous zlib stream costs ~50–120 µs of this thread's CPU and a
 * thread-pool hop (the server's rule for compressing, http.ts, mirrored).
 */
const GUNZIP_INLINE_MAX = 8 * 1024;
/** What an inline inflate may produce; a larger answer is inflated on the thread pool after all. */
const GUNZIP_INLINE_OUTPUT_MAX = 1024 * 1024;

/** The text of a small gzip answer, or undefined for the thread pool (large, or not valid gzip: its error there). */
function smallGunzip(raw: Buffer): string | undefined {
  if (raw.length > GUNZIP_INLINE_MAX) return undefined;
  try {
    return gunzipSync(raw, { maxOutputLength: GUNZIP_INLINE_OUTPUT_MAX }).toString('utf8');
  } catch {
    return undefined;
  }
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function remoteError(v: unknown): RpcError | undefined {
  const e = asObject(v);
  if (!e) return undefined;
  const code = typeof e.code === 'number' ? e.code : 0;
  const message = typeof e.message === 'string' ? e.message : `json-rpc error ${code}`;
  return RpcError.fromObject({ code, message, data: e.data } as RpcErrorObject);
}

/** Result of one response object: the result, or a thrown RpcError / RpcTransportError. */
function unwrap(resp: unknown): unknown {
  const o = asObject(resp);
  if (!o) throw new RpcTransportError(RpcTransportErrorCode.badResponse, 'answer is not a JSON-RPC response');
  if (o.error !== undefined && o.error !== null) {
    throw remoteError(o.error) ?? new RpcTransportError(RpcTransportErrorCode.badResponse, 'malformed error object');
  }
  if (!Object.hasOwn(o, 'result')) {
    throw new RpcTransportError(RpcTransportErrorCode.badResponse, 'JSON-RPC response has no result');
  }
  return o.result;
}

export class RpcClient {
  readonly #opts: RpcClientOptions;
  readonly #logger: Logger | undefined;
  readonly #transport: Transport;
  readonly #ws: WsTransport | undefined;
  #nextId = 1;
  #closed = false;

  constructor(opts: RpcClientOptions, deps: RpcClientDeps = {}) {
    if (opts.jwtSecret && opts.jwtSecret.length !== 32) {
      throw new RangeError(`JWT secret must be 32 bytes, got ${opts.jwtSecret.length}`);
    }
    const url = new URL(opts.url);
    this.#opts = opts;
    this.#logger = deps.logger?.child('rpc-client', { url: `${url.protocol}//${url.host}` });
    if (url.protocol === 'http:' || url.protocol === 'https:') {
      this.#transport = new HttpTransport(url, opts);
    } else if (url.protocol === 'ws:' || url.protocol === 'wss:') {
      this.#ws = new WsTransport(url, opts, this.#logger);
      this.#transport = this.#ws;
    } else {
      throw new RangeError(`unsupported RPC URL scheme "${url.protocol}" in ${opts.url}`);
    }
    deps.signal?.addEventListener('abort', () => void this.close(), { once: true });
  }

  get transport(): 'http' | 'ws' {
    return this.#ws ? 'ws' : 'http';
  }

  /** Calls a method; resolves with its result or throws RpcError (remote) / RpcTransportError. */
  async call<T = unknown>(
    method: string,
    params: readonly unknown[] | EncodedParams = [],
    opts: CallOptions = {},
  ): Promise<T> {
    return this.#withRetry(method, opts, async (signal) => {
      const id = this.#nextId++;
      const answer = await this.#transport.request(encodeCall(id, method, params), [id], signal);
      return unwrap(answer) as T;
    });
  }

  /**
   * Sends the calls as one batch; resolves with one result per call, in order. A batch refused as a whole (e.g.
   * too large for the server) gives every call that error.
   */
  async batch<T = unknown>(requests: readonly BatchRequest[], opts: CallOptions = {}): Promise<BatchResult<T>[]> {
    if (requests.length === 0) return [];
    return this.#withRetry('batch', opts, async (signal) => {
      const ids = requests.map(() => this.#nextId++);
      const body = `[${requests.map((r, i) => encodeCall(ids[i] as number, r.method, r.params)).join(',')}]`;
      const answer = await this.#transport.request(body, ids, signal);
      if (!Array.isArray(answer)) {
        const o = asObject(answer);
        const err = o ? remoteError(o.error) : undefined;
        throw err ?? new RpcTransportError(RpcTransportErrorCode.badResponse, 'batch answer is not an array');
      }
      const byId = new Map<unknown, unknown>();
      let unmatched: RpcError | undefined;
      for (const resp of answer) {
        const o = asObject(resp);
        if (!o) continue;
        if (ids.includes(o.id as number)) byId.set(o.id, resp);
        else unmatched ??= remoteError(o.error);
      }
      // geth answers an over-long batch with a single error carrying the first id: it applies to every call.
      const first = byId.get(ids[0]);
      const wholeBatch =
        answer.length === 1 && requests.length > 1 && first !== undefined
          ? remoteError(asObject(first)?.error)
          : undefined;
      return ids.map((id): BatchResult<T> => {
        const resp = byId.get(id);
        if (resp === undefined || (wholeBatch && id !== ids[0])) {
          const error =
            wholeBatch ??
            unmatched ??
            new RpcTransportError(RpcTransportErrorCode.badResponse, 'missing batch response');
          return { ok: false, error };
        }
        try {
          return { ok: true, value: unwrap(resp) as T };
        } catch (err) {
          return { ok: false, error: err as RpcError | RpcTransportError };
        }
      });
    });
  }

  /**
   * Subscribes (`<namespace>_subscribe` with params, e.g. ['newHeads']) over WebSocket; `onNotify` gets each
   * notification's result. Over HTTP this throws RpcError -32601 `notifications not supported`.
   */
  async subscribe(
    namespace: string,
    params: readonly unknown[],
    onNotify: (result: unknown) => void,
    opts: SubscribeOptions = {},
  ): Promise<ClientSubscription> {
    const ws = this.#ws;
    if (!ws) throw notificationsUnsupported();
    const id = await this.#withRetry(`${namespace}_subscribe`, opts, async (signal) => {
      const reqId = this.#nextId++;
      const answer = await ws.request(encodeCall(reqId, `${namespace}_subscribe`, params), [reqId], signal, {
        onAnswer: (a) => {
          const result = asObject(a)?.result;
          if (typeof result === 'string') ws.addSubscription(result, onNotify, opts.onError);
        },
      });
      const result = unwrap(answer);
      if (typeof result !== 'string') {
        throw new RpcTransportError(RpcTransportErrorCode.badResponse, 'subscription id is not a string');
      }
      return result;
    });
    return {
      id,
      unsubscribe: async () => {
        if (!ws.removeSubscription(id)) return false;
        return (await this.call<boolean>(`${namespace}_unsubscribe`, [id])) === true;
      },
    };
  }

  /** Ends pending requests with RPC_CLOSED and closes connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#transport.close();
  }

  async #withRetry<T>(method: string, opts: CallOptions, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      if (this.#closed) throw new RpcTransportError(RpcTransportErrorCode.closed, 'RPC client is closed');
      try {
        return await this.#once(opts, attempt);
      } catch (err) {
        const delay =
          this.#closed || opts.signal?.aborted ? undefined : this.#opts.retry?.({ attempt: n, error: err, method });
        if (delay === undefined) throw err;
        this.#logger?.debug('Retrying RPC request', {
          method,
          attempt: n,
          delayMs: delay,
          err: err instanceof Error ? err.message : String(err),
        });
        await sleep(delay, opts.signal);
      }
    }
  }

  async #once<T>(opts: CallOptions, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.#opts.timeoutMs ?? rpcClientDefaults.timeoutMs;
    const controller = new AbortController();
    const onAbort = (): void =>
      controller.abort(new RpcTransportError(RpcTransportErrorCode.aborted, 'request aborted'));
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      timeoutMs > 0
        ? setTimeout(
            () =>
              controller.abort(
                new RpcTransportError(RpcTransportErrorCode.timeout, `request timed out after ${timeoutMs}ms`),
              ),
            timeoutMs,
          )
        : undefined;
    try {
      return await attempt(controller.signal);
    } catch (err) {
      if (controller.signal.aborted && controller.signal.reason instanceof RpcTransportError) {
        throw controller.signal.reason;
      }
      throw err;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new RpcTransportError(RpcTransportErrorCode.aborted, 'request aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new RpcTransportError(RpcTransportErrorCode.aborted, 'request aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function connectionError(err: unknown): RpcTransportError {
  if (err instanceof RpcTransportError) return err;
  const e = err as NodeJS.ErrnoException;
  return new RpcTransportError(
    RpcTransportErrorCode.connection,
    e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? err),
    {
      cause: err,
    },
  );
}

// ---- HTTP -------------------------------------------------------------------------------------------------------

class HttpTransport implements Transport {
  readonly #url: URL;
  readonly #opts: RpcClientOptions;
  readonly #agent: HttpAgent | HttpsAgent;
  readonly #https: boolean;

  constructor(url: URL, opts: RpcClientOptions) {
    this.#url = url;
    this.#opts = opts;
    this.#https = url.protocol === 'https:';
    this.#agent = this.#https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  request(body: string, _ids: readonly number[], signal: AbortSignal): Promise<unknown> {
    const payload = Buffer.from(body, 'utf8');
    const headers: Record<string, string | number> = {
      ...this.#opts.headers,
      'content-type': 'application/json',
      accept: 'application/json',
      'accept-encoding': 'gzip',
      'content-length': payload.length,
    };
    if (this.#opts.jwtSecret) headers.authorization = `Bearer ${signJwt(this.#opts.jwtSecret)}`;
    return new Promise<unknown>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const send = this.#https ? httpsRequest : httpRequest;
      const req = send(this.#url, { method: 'POST', headers, agent: this.#agent });
      const onAbort = (): void => {
        req.destroy();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = (fn: () => void): void => {
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      req.on('error', (err) => settle(() => reject(signal.aborted ? signal.reason : connectionError(err))));
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => settle(() => reject(signal.aborted ? signal.reason : connectionError(err))));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const finish = (text: string): void => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              const statusText = `${status} ${res.statusMessage ?? ''}`.trim();
              const bodyText = text.slice(0, 4096).trim();
              settle(() =>
                reject(
                  new RpcTransportError(
                    RpcTransportErrorCode.httpStatus,
                    bodyText ? `${statusText}: ${bodyText}` : statusText,
                    {
                      status,
                      body: bodyText,
                    },
                  ),
                ),
              );
              return;
            }
            let value: unknown;
            try {
              value = JSON.parse(text);
            } catch (err) {
              settle(() =>
                reject(
                  new RpcTransportError(
                    RpcTransportErrorCode.badResponse,
                    `answer is not JSON: ${(err as Error).message}`,
                  ),
                ),
              );
              return;
            }
            settle(() => resolve(value));
          };
          if (res.headers['content-encoding'] === 'gzip') {
            const small = smallGunzip(raw);
            if (small !== undefined) {
              finish(small);
              return;
            }
            gunzip(raw, (err, out) => {
              if (err) {
                settle(() =>
                  reject(new RpcTransportError(RpcTransportErrorCode.badResponse, `bad gzip answer: ${err.message}`)),
                );
              } else finish(out.toString('utf8'));
            });
          } else finish(raw.toString('utf8'));
        });
      });
      req.end(payload);
    });
  }

  async close(): Promise<void> {
    this.#agent.destroy();
  }
}

// ---- WebSocket ----------------------------------------------------------------------------------------------------

interface Pending {
  ids: readonly number[];
  answers: Map<number, unknown>;
  hooks: RequestHooks | undefined;
  batch: boolean;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

interface SubscriptionEntry {
  onNotify(result: unknown): void;
  onError: ((err: Error) => void) | undefined;
}

class WsTransport implements Transport {
  readonly #url: URL;
  readonly #opts: RpcClientOptions;
  readonly #logger: Logger | undefined;
  #socket: WebSocket | undefined;
  #connecting: Promise<WebSocket> | undefined;
  readonly #pending = new Map<number, Pending>();
  readonly #subs = new Map<string, SubscriptionEntry>();
  #closed = false;

  constructor(url: URL, opts: RpcClientOptions, logger: Logger | undefined) {
    this.#url = url;
    this.#opts = opts;
    this.#logger = logger;
  }

  addSubscription(id: string, onNotify: (result: unknown) => void, onError: ((err: Error) => void) | undefined): void {
    this.#subs.set(id, { onNotify, onError });
  }

  removeSubscription(id: string): boolean {
    return this.#subs.delete(id);
  }

  async request(body: string, ids: readonly number[], signal: AbortSignal, hooks?: RequestHooks): Promise<unknown> {
    if (signal.aborted) throw signal.reason;
    const socket = await this.#connect(signal);
    return new Promise<unknown>((resolve, reject) => {
      const pending: Pending = {
        ids,
        answers: new Map(),
        hooks,
        batch: body.startsWith('['),
        resolve: (v) => {
          cleanup();
          resolve(v);
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
      };
      const onAbort = (): void => pending.reject(signal.reason);
      const cleanup = (): void => {
        signal.removeEventListener('abort', onAbort);
        for (const id of ids) this.#pending.delete(id);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      for (const id of ids) this.#pending.set(id, pending);
      socket.send(body, (err) => {
        if (err) pending.reject(connectionError(err));
      });
    });
  }

  #connect(signal: AbortSignal): Promise<WebSocket> {
    if (this.#closed)
      return Promise.reject(new RpcTransportError(RpcTransportErrorCode.closed, 'RPC client is closed'));
    if (this.#socket && this.#socket.readyState === WebSocket.OPEN) return Promise.resolve(this.#socket);
    this.#connecting ??= new Promise<WebSocket>((resolve, reject) => {
      const headers: Record<string, string> = { ...this.#opts.headers };
      if (this.#opts.jwtSecret) headers.authorization = `Bearer ${signJwt(this.#opts.jwtSecret)}`;
      const socket = new WebSocket(this.#url, {
        headers,
        maxPayload: this.#opts.wsMaxPayload ?? rpcClientDefaults.wsMaxPayload,
        perMessageDeflate: false,
      });
      socket.once('open', () => {
        this.#connecting = undefined;
        this.#socket = socket;
        resolve(socket);
      });
      socket.once('unexpected-response', (_req, res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8').trim();
          this.#connecting = undefined;
          socket.terminate();
          reject(
            new RpcTransportError(
              RpcTransportErrorCode.httpStatus,
              `${status} ${res.statusMessage ?? ''}${text ? `: ${text}` : ''}`.trim(),
              { status, body: text },
            ),
          );
        });
      });
      socket.on('error', (err) => {
        if (this.#socket !== socket) {
          this.#connecting = undefined;
          reject(connectionError(err));
        } else {
          this.#logger?.debug('WebSocket error', { err: err.message });
        }
      });
      socket.on('message', (data: RawData) => this.#dispatch(data));
      socket.on('close', () => this.#onClose(socket));
    });
    const connecting = this.#connecting;
    return new Promise<WebSocket>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      connecting.then(
        (s) => {
          signal.removeEventListener('abort', onAbort);
          resolve(s);
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      );
    });
  }

  #dispatch(data: RawData): void {
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data as Buffer).toString('utf8');
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.#logger?.debug('Dropping a message that is not JSON');
      return;
    }
    if (Array.isArray(msg)) {
      const touched = new Set<Pending>();
      for (const item of msg) {
        const p = this.#deliver(item);
        if (p) touched.add(p);
      }
      // A batch answer arrives in one message: whatever is missing from it will not come.
      for (const p of touched) p.resolve([...p.answers.values()]);
      return;
    }
    const o = asObject(msg);
    if (!o) return;
    if (typeof o.method === 'string' && o.method.endsWith('_subscription') && o.id === undefined) {
      const params = asObject(o.params);
      const sub = typeof params?.subscription === 'string' ? this.#subs.get(params.subscription) : undefined;
      if (sub) {
        try {
          sub.onNotify(params?.result);
        } catch (err) {
          this.#logger?.warn('Subscription callback failed', { err: err instanceof Error ? err.message : String(err) });
        }
      }
      return;
    }
    const p = this.#deliver(o);
    if (!p) return;
    if (!p.batch) {
      p.hooks?.onAnswer?.(o);
      p.resolve(o);
    } else if (p.answers.size === p.ids.length) {
      p.resolve([...p.answers.values()]);
    }
  }

  #deliver(item: unknown): Pending | undefined {
    const o = asObject(item);
    if (!o || typeof o.id !== 'number') return undefined;
    const p = this.#pending.get(o.id);
    if (!p) return undefined;
    p.answers.set(o.id, o);
    return p;
  }

  #onClose(socket: WebSocket): void {
    if (this.#socket === socket) this.#socket = undefined;
    const err = this.#closed
      ? new RpcTransportError(RpcTransportErrorCode.closed, 'RPC client is closed')
      : new RpcTransportError(RpcTransportErrorCode.connection, 'WebSocket connection closed');
    for (const p of new Set(this.#pending.values())) p.reject(err);
    const subs = [...this.#subs.values()];
    this.#subs.clear();
    for (const s of subs) s.onError?.(err);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const socket = this.#socket ?? (await this.#connecting?.catch(() => undefined));
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => socket.terminate(), 1000);
      socket.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      socket.close(1000);
    });
  }
}
