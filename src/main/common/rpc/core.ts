// The transport-independent JSON-RPC engine, following geth's rpc/handler.go: one RpcCore per listener (its API
// view and batch limits), one RpcSession per connection (HTTP: per request) holding that connection's
// subscriptions. Transports parse the payload, hand it to RpcSession.handle and write the outcome's body, then
// call outcome.written() so subscription notifications start after the subscribe response went out.
import { randomBytes } from 'node:crypto';
import {
  isRpcErrorLike,
  methodNotFound,
  notificationsUnsupported,
  RpcErrorCode,
  type RpcErrorObject,
  subscriptionNotFound,
} from '../../protocol/jsonrpc/errors.js';
import type { Logger } from '../logger/index.js';
import { encodeJson, idText, mayHaveNonCanonicalIds, rawIds } from './json.js';
import {
  type CallContext,
  namespaceOf,
  type PeerInfo,
  type RpcApiView,
  type RpcHandler,
  type Subscription,
} from './registry.js';

export interface RpcCoreOptions {
  /** Most calls in one batch (--rpc.batch-request-limit); 0 for no limit. */
  batchRequestLimit: number;
  /** Most result/error bytes answered to one batch (--rpc.batch-response-max-size); 0 for no limit. */
  batchResponseMaxSize: number;
  /** Time a request (or a whole batch) may take before it is answered -32002 `request timed out`; 0 for none. */
  requestTimeoutMs: number;
}

/** geth's node defaults (--rpc.batch-request-limit, --rpc.batch-response-max-size); no timeout. */
export const rpcCoreDefaults: RpcCoreOptions = {
  batchRequestLimit: 1000,
  batchResponseMaxSize: 25_000_000,
  requestTimeoutMs: 0,
};

/** Request metrics a listener reports (geth's rpc/requests, rpc/success, rpc/failure, rpc/duration). */
export interface RpcMetrics {
  observeRequest(method: string, success: boolean, durationMs: number): void;
}

export interface RpcCoreDeps {
  logger: Logger;
  metrics?: RpcMetrics | undefined;
}

/** What a session needs from its connection. */
export interface SessionIO {
  peer: PeerInfo;
  /** Sends one notification message; present on transports that carry notifications (WebSocket, IPC). */
  send?: ((text: string) => void) | undefined;
}

export interface Outcome {
  /** Response text to write; undefined when nothing is to be written (notifications, responses). */
  body: string | undefined;
  /** geth's isError: an error written outside normal processing (flushed, never compressed). */
  isError: boolean;
  /** Call once the body was written (or at once when there is none): starts subscription notifications. */
  written(): void;
}

const MAX_METHOD_NAME_LENGTH = 2048;
const VERSION = '2.0';
const NONE: Outcome = { body: undefined, isError: false, written: () => {} };

/** The response of a parse failure (geth answers `id: null`). */
export function parseErrorResponse(message = 'parse error'): string {
  return errorResponse('null', { code: RpcErrorCode.parseError, message });
}

export function errorResponse(id: string | undefined, err: RpcErrorObject): string {
  const idPart = id === undefined ? '' : `,"id":${id}`;
  return `{"jsonrpc":"2.0"${idPart},"error":${errorObjectJson(err)}}`;
}

function errorObjectJson(err: RpcErrorObject): string {
  const head = `{"code":${err.code},"message":${encodeJson(err.message)}`;
  if (err.data === undefined) return `${head}}`;
  let data: string;
  try {
    data = encodeJson(err.data);
  } catch {
    return `${head}}`;
  }
  return `${head},"data":${data}}`;
}

export class RpcCore {
  readonly view: RpcApiView;
  readonly options: RpcCoreOptions;
  readonly logger: Logger;
  readonly metrics: RpcMetrics | undefined;

  constructor(view: RpcApiView, opts: Partial<RpcCoreOptions>, deps: RpcCoreDeps) {
    this.view = view;
    this.options = { ...rpcCoreDefaults, ...stripUndefined(opts) };
    this.logger = deps.logger;
    this.metrics = deps.metrics;
  }

  session(io: SessionIO): RpcSession {
    return new RpcSession(this, io);
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** A request message as geth classifies it. */
interface Msg {
  index: number;
  hasId: boolean;
  /** id present and not an object or array. */
  idOk: boolean;
  id: unknown;
  method: string;
  hasParams: boolean;
  params: unknown;
  isCall: boolean;
  isNotification: boolean;
  isResponse: boolean;
}

function member(obj: Record<string, unknown>, name: string): { present: boolean; value: unknown } {
  if (Object.hasOwn(obj, name)) return { present: true, value: obj[name] };
  let found: { present: boolean; value: unknown } = { present: false, value: undefined };
  for (const k of Object.keys(obj)) {
    if (k.length === name.length && k.toLowerCase() === name) found = { present: true, value: obj[k] };
  }
  return found;
}

function classify(raw: unknown, index: number): Msg {
  const m: Msg = {
    index,
    hasId: false,
    idOk: false,
    id: undefined,
    method: '',
    hasParams: false,
    params: undefined,
    isCall: false,
    isNotification: false,
    isResponse: false,
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return m;
  const obj = raw as Record<string, unknown>;
  const version = member(obj, 'jsonrpc').value;
  const id = member(obj, 'id');
  const method = member(obj, 'method').value;
  const params = member(obj, 'params');
  m.hasId = id.present;
  m.id = id.value;
  m.idOk = id.present && (id.value === null || typeof id.value !== 'object');
  m.method = typeof method === 'string' ? method : '';
  m.hasParams = params.present;
  m.params = params.value;
  const versionOk = version === VERSION;
  m.isCall = versionOk && m.idOk && m.method !== '';
  m.isNotification = versionOk && !m.hasId && m.method !== '';
  m.isResponse =
    versionOk &&
    m.idOk &&
    m.method === '' &&
    !m.hasParams &&
    (member(obj, 'result').present || member(obj, 'error').present);
  return m;
}

type Answer = { ok: true; json: string } | { ok: false; error: RpcErrorObject };

/** A subscription created by a `*_subscribe` call. */
class ServerSubscription implements Subscription {
  readonly id: string;
  readonly #controller = new AbortController();
  #queue: string[] | undefined = [];

  constructor(
    private readonly session: RpcSession,
    private readonly namespace: string,
  ) {
    this.id = newSubscriptionId();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  notify(result: unknown): boolean {
    if (this.#controller.signal.aborted) return false;
    const text = `{"jsonrpc":"2.0","method":${encodeJson(`${this.namespace}_subscription`)},"params":{"subscription":"${this.id}","result":${encodeJson(result)}}}`;
    if (this.#queue) this.#queue.push(text);
    else this.session.sendNotification(text);
    return true;
  }

  toJSON(): string {
    return this.id;
  }

  activate(): void {
    const queued = this.#queue;
    this.#queue = undefined;
    if (!queued || this.#controller.signal.aborted) return;
    for (const text of queued) this.session.sendNotification(text);
  }

  end(): void {
    this.#queue = undefined;
    this.#controller.abort(new Error('subscription ended'));
  }
}

/** geth's subscription ids: 16 random bytes as a quantity. */
function newSubscriptionId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '');
  return `0x${hex === '' ? '0' : hex}`;
}

/** Per-call state: the subscriptions a subscribe call created. */
interface CallProc {
  signal: AbortSignal;
  subs: ServerSubscription[];
}

export class RpcSession {
  readonly #core: RpcCore;
  readonly #io: SessionIO;
  readonly #controller = new AbortController();
  readonly #subs = new Map<string, ServerSubscription>();

  constructor(core: RpcCore, io: SessionIO) {
    this.#core = core;
    this.#io = io;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get closed(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Active subscriptions on this connection. */
  get subscriptionCount(): number {
    return this.#subs.size;
  }

  /** Ends every call and subscription of this connection. */
  close(reason = 'connection closed'): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(new Error(reason));
    for (const sub of this.#subs.values()) sub.end();
    this.#subs.clear();
  }

  /** @internal */
  sendNotification(text: string): void {
    if (!this.closed) this.#io.send?.(text);
  }

  /** Handles one parsed payload (a message or a batch); `text` is its JSON text, used to echo ids exactly. */
  async handle(value: unknown, text: string): Promise<Outcome> {
    let ids: (string | undefined)[] | undefined;
    let check: boolean | undefined;
    const raw = (index: number) => (): string | undefined => {
      check ??= mayHaveNonCanonicalIds(text);
      if (!check) return undefined;
      ids ??= rawIds(text);
      return ids[index];
    };
    if (Array.isArray(value)) return this.#batch(value.map(classify), raw);
    return this.#single(classify(value, 0), raw(0));
  }

  #idOf(m: Msg, raw: () => string | undefined): string | undefined {
    return m.hasId ? idText(m.id, raw) : undefined;
  }

  async #single(m: Msg, raw: () => string | undefined): Promise<Outcome> {
    if (m.isResponse) return NONE; // an answer to a call we never made
    if (m.isNotification && m.method.endsWith('_subscription')) return NONE;
    const proc: CallProc = { signal: this.signal, subs: [] };
    const timeoutMs = this.#core.options.requestTimeoutMs;
    let answer: string | undefined;
    let isError = false;
    if (timeoutMs > 0) {
      const controller = new AbortController();
      const onClose = () => controller.abort(this.signal.reason);
      this.signal.addEventListener('abort', onClose, { once: true });
      proc.signal = controller.signal;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      });
      const result = await Promise.race([this.#callMsg(m, proc, raw).then((r) => ({ r })), timedOut]);
      clearTimeout(timer);
      this.signal.removeEventListener('abort', onClose);
      if (result === undefined) {
        controller.abort(new Error('request timed out'));
        for (const sub of proc.subs) sub.end();
        if (m.isNotification) return NONE;
        answer = errorResponse(this.#idOf(m, raw), { code: RpcErrorCode.timeout, message: 'request timed out' });
        isError = true;
        return { body: answer, isError, written: () => {} };
      }
      answer = result.r?.text;
    } else {
      answer = (await this.#callMsg(m, proc, raw))?.text;
    }
    this.#addSubscriptions(proc.subs);
    return {
      body: m.isNotification ? undefined : answer,
      isError,
      written: () => {
        for (const sub of proc.subs) sub.activate();
      },
    };
  }

  async #batch(msgs: Msg[], raw: (index: number) => () => string | undefined): Promise<Outcome> {
    const { batchRequestLimit, batchResponseMaxSize, requestTimeoutMs } = this.#core.options;
    if (msgs.length === 0) {
      const body = errorResponse('null', { code: RpcErrorCode.invalidRequest, message: 'empty batch' });
      return { body, isError: true, written: () => {} };
    }
    if (batchRequestLimit !== 0 && msgs.length > batchRequestLimit) {
      // geth answers a one-element batch carrying the id of the first call in the request.
      const first = msgs.find((m) => m.isCall);
      const id = first ? this.#idOf(first, raw(first.index)) : 'null';
      const body = `[${errorResponse(id, { code: RpcErrorCode.invalidRequest, message: 'batch too large' })}]`;
      return { body, isError: true, written: () => {} };
    }
    const calls = msgs.filter((m) => !m.isResponse && !(m.isNotification && m.method.endsWith('_subscription')));
    if (calls.length === 0) return NONE;

    const controller = new AbortController();
    const onClose = () => controller.abort(this.signal.reason);
    this.signal.addEventListener('abort', onClose, { once: true });
    const proc: CallProc = { signal: controller.signal, subs: [] };
    let timer: NodeJS.Timeout | undefined;
    const timedOut =
      requestTimeoutMs > 0
        ? new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), requestTimeoutMs);
          })
        : undefined;

    const responses: string[] = [];
    let bytes = 0;
    let isError = false;
    const failRest = (from: number, err: RpcErrorObject): void => {
      for (let j = from; j < calls.length; j++) {
        const m = calls[j] as Msg;
        if (!m.isNotification) responses.push(errorResponse(this.#idOf(m, raw(m.index)), err));
      }
      isError = true;
    };
    try {
      for (let i = 0; i < calls.length; i++) {
        const m = calls[i] as Msg;
        const pending = this.#callMsg(m, proc, raw(m.index));
        const result = timedOut ? await Promise.race([pending.then((r) => ({ r })), timedOut]) : { r: await pending };
        if (result === undefined) {
          controller.abort(new Error('request timed out'));
          failRest(i, { code: RpcErrorCode.timeout, message: 'request timed out' });
          break;
        }
        if (m.isNotification || result.r === undefined) continue;
        responses.push(result.r.text);
        if (batchResponseMaxSize !== 0) {
          bytes += result.r.payloadBytes;
          if (bytes > batchResponseMaxSize) {
            failRest(i + 1, { code: RpcErrorCode.responseTooLarge, message: 'response too large' });
            break;
          }
        }
      }
    } finally {
      clearTimeout(timer);
      this.signal.removeEventListener('abort', onClose);
    }
    if (controller.signal.aborted) {
      for (const sub of proc.subs) sub.end();
      proc.subs = [];
    }
    this.#addSubscriptions(proc.subs);
    return {
      body: responses.length > 0 ? `[${responses.join(',')}]` : undefined,
      isError,
      written: () => {
        for (const sub of proc.subs) sub.activate();
      },
    };
  }

  #addSubscriptions(subs: ServerSubscription[]): void {
    for (const sub of subs) {
      if (this.closed) sub.end();
      else this.#subs.set(sub.id, sub);
    }
  }

  /** Runs one message of any kind; the response text (with its result/error size) or undefined. */
  async #callMsg(
    m: Msg,
    proc: CallProc,
    raw: () => string | undefined,
  ): Promise<{ text: string; payloadBytes: number } | undefined> {
    if (!m.isCall && !m.isNotification) {
      const id = m.idOk ? idText(m.id, raw) : 'null';
      const err = { code: RpcErrorCode.invalidRequest, message: 'invalid request' };
      const json = errorObjectJson(err);
      return { text: `{"jsonrpc":"2.0","id":${id},"error":${json}}`, payloadBytes: Buffer.byteLength(json) };
    }
    const start = performance.now();
    const answer = await this.#call(m, proc);
    const durationMs = performance.now() - start;
    const id = m.isCall ? idText(m.id, raw) : undefined;
    this.#log(m, answer, id, durationMs);
    if (answer.ok) {
      const text = `{"jsonrpc":"2.0"${id === undefined ? '' : `,"id":${id}`},"result":${answer.json}}`;
      return { text, payloadBytes: Buffer.byteLength(answer.json) };
    }
    const json = errorObjectJson(answer.error);
    const text = `{"jsonrpc":"2.0"${id === undefined ? '' : `,"id":${id}`},"error":${json}}`;
    return { text, payloadBytes: Buffer.byteLength(json) };
  }

  #log(m: Msg, answer: Answer, id: string | undefined, durationMs: number): void {
    const logger = this.#core.logger;
    const duration = `${durationMs.toFixed(3)}ms`;
    this.#core.metrics?.observeRequest(m.method, answer.ok, durationMs);
    if (!answer.ok && m.isCall) {
      const ctx: Record<string, unknown> = { reqid: id, duration, err: answer.error.message };
      if (answer.error.data !== undefined) ctx.errdata = formatErrorData(answer.error.data);
      logger.warn(`Served ${m.method}`, ctx);
    } else if (logger.isEnabled('debug')) {
      logger.debug(`Served ${m.method}`, m.isCall ? { reqid: id, duration } : { duration });
    }
  }

  async #call(m: Msg, proc: CallProc): Promise<Answer> {
    const method = m.method;
    if (method.length > MAX_METHOD_NAME_LENGTH) {
      return fail(RpcErrorCode.invalidRequest, `method name too long: ${method.length} > ${MAX_METHOD_NAME_LENGTH}`);
    }
    if (method.endsWith('_subscribe')) return this.#subscribe(m, proc);
    if (method.endsWith('_unsubscribe')) return this.#unsubscribe(m);
    const handler = this.#core.view.method(method);
    if (!handler) return { ok: false, error: methodNotFound(method).toJSON() };
    const args = positional(m);
    if (!args) return fail(RpcErrorCode.invalidParams, 'non-array args');
    return this.#run(method, handler, args, this.#context(method, proc, false));
  }

  async #subscribe(m: Msg, proc: CallProc): Promise<Answer> {
    if (!this.#io.send) return { ok: false, error: notificationsUnsupported().toJSON() };
    const args = positional(m);
    if (!args || !m.hasParams || m.params === null) return fail(RpcErrorCode.invalidParams, 'non-array args');
    const name = args[0];
    if (typeof name !== 'string') {
      return fail(RpcErrorCode.invalidParams, 'expected subscription name as first argument');
    }
    const namespace = namespaceOf(m.method);
    const handler = this.#core.view.subscription(namespace, name);
    if (!handler)
      return fail(RpcErrorCode.methodNotFound, `no ${JSON.stringify(name)} subscription in ${namespace} namespace`);
    const answer = await this.#run(m.method, handler as RpcHandler, args.slice(1), this.#context(m.method, proc, true));
    if (!answer.ok) {
      for (const sub of proc.subs) sub.end();
      proc.subs = [];
    }
    return answer;
  }

  #unsubscribe(m: Msg): Answer {
    const args = positional(m);
    if (!args) return fail(RpcErrorCode.invalidParams, 'non-array args');
    if (args.length > 1) return fail(RpcErrorCode.invalidParams, 'too many arguments, want at most 1');
    if (args.length === 0) return fail(RpcErrorCode.invalidParams, 'missing value for required argument 0');
    const id = args[0];
    if (typeof id !== 'string') {
      const kind = id === null ? 'null' : Array.isArray(id) ? 'array' : typeof id === 'boolean' ? 'bool' : typeof id;
      return fail(
        RpcErrorCode.invalidParams,
        `invalid argument 0: json: cannot unmarshal ${kind} into Go value of type rpc.ID`,
      );
    }
    const sub = this.#subs.get(id);
    if (!sub) return { ok: false, error: subscriptionNotFound().toJSON() };
    this.#subs.delete(id);
    sub.end();
    return { ok: true, json: 'true' };
  }

  #context(method: string, proc: CallProc, subscribe: boolean): CallContext {
    const canSubscribe = subscribe && this.#io.send !== undefined;
    return {
      method,
      transport: this.#io.peer.transport,
      peer: this.#io.peer,
      signal: proc.signal,
      canSubscribe,
      createSubscription: (): Subscription => {
        if (!canSubscribe) throw notificationsUnsupported();
        if (proc.subs.length > 0) throw new Error('a subscribe call can create only one subscription');
        const sub = new ServerSubscription(this, namespaceOf(method));
        proc.subs.push(sub);
        return sub;
      },
    };
  }

  async #run(method: string, handler: RpcHandler, args: unknown[], ctx: CallContext): Promise<Answer> {
    let result: unknown;
    try {
      result = await handler(args, ctx);
    } catch (err) {
      if (isRpcErrorLike(err)) {
        const e = err as RpcErrorObject;
        return { ok: false, error: e.data === undefined ? { code: e.code, message: e.message } : e };
      }
      this.#core.logger.error(`RPC method ${method} crashed`, {
        err: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
      return fail(RpcErrorCode.internal, 'method handler crashed');
    }
    try {
      return { ok: true, json: encodeJson(result) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#core.logger.error(`RPC method ${method} returned a value that cannot be encoded`, { err: message });
      return fail(RpcErrorCode.internal, `json: ${message}`);
    }
  }
}

function fail(code: number, message: string): Answer {
  return { ok: false, error: { code, message } };
}

/** Params as positional arguments: absent or null give [], an array is used as is, anything else is refused. */
function positional(m: Msg): unknown[] | undefined {
  if (!m.hasParams || m.params === null) return [];
  return Array.isArray(m.params) ? m.params : undefined;
}

/** Error data for the log line, truncated at 1 KiB as geth does. */
function formatErrorData(data: unknown): string {
  let text: string;
  try {
    text = encodeJson(data);
  } catch {
    return 'bad error data';
  }
  return text.length > 1024 ? `${text.slice(0, 1024)}... (truncated)` : text;
}
