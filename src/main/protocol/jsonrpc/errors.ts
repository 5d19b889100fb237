// JSON-RPC errors as geth reports them: the numeric codes are part of the wire format (conformance suites compare
// them), the messages follow geth's wording where geth has one. Handlers throw `RpcError`; transports and the
// client raise `RpcTransportError` (a TernError with a string code) for failures below JSON-RPC.
import { TernError } from '../../primitives/errors.js';

/** Error codes used on the wire. */
export const RpcErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** geth's default for any plain server-side error (`errcodeDefault`). */
  server: -32000,
  /** geth's `errcodeTimeout`: the request ran past the transport's write deadline. */
  timeout: -32002,
  /** geth's `errcodeResponseTooLarge`: a batch response passed --rpc.batch-response-max-size. */
  responseTooLarge: -32003,
  /** A limit was exceeded (geth's filter and log-range limits). */
  limitExceeded: -32005,
  /** EVM execution reverted; `data` carries the revert data. */
  executionReverted: 3,
  /** Engine API (execution-apis `engine/common.md`). */
  unknownPayload: -38001,
  invalidForkchoiceState: -38002,
  invalidPayloadAttributes: -38003,
  tooLargeRequest: -38004,
  unsupportedFork: -38005,
} as const;

/** A JSON-RPC error: thrown by handlers, sent as `{"code","message","data"?}`, raised by the client. */
export class RpcError extends Error {
  readonly code: number;
  /** Omitted from the response when undefined (geth's `omitempty`). */
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }

  /** The JSON-RPC error object; plain data, safe to post to another thread. */
  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Rebuilds an error from its JSON-RPC error object (a response, or the other side of a thread boundary). */
  static fromObject(obj: RpcErrorObject): RpcError {
    return new RpcError(obj.code, obj.message, obj.data);
  }
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** True for RpcError and for plain objects shaped like one (an RpcError that crossed a thread boundary). */
export function isRpcErrorLike(err: unknown): err is RpcErrorObject {
  if (err instanceof RpcError) return true;
  if (err === null || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown };
  return Number.isInteger(e.code) && typeof e.message === 'string';
}

// ---- constructors with geth's messages ---------------------------------------------------------------------

export function invalidParams(message: string, data?: unknown): RpcError {
  return new RpcError(RpcErrorCode.invalidParams, message, data);
}

export function methodNotFound(method: string): RpcError {
  return new RpcError(RpcErrorCode.methodNotFound, `the method ${method} does not exist/is not available`);
}

/** A plain server-side failure (geth's -32000 for errors without their own code). */
export function serverError(message: string, data?: unknown): RpcError {
  return new RpcError(RpcErrorCode.server, message, data);
}

/** `execution reverted` with the revert data (hex) as geth's eth_call and eth_estimateGas report it. */
export function executionReverted(data: string, reason?: string): RpcError {
  return new RpcError(
    RpcErrorCode.executionReverted,
    reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
    data,
  );
}

export const notificationsUnsupported = (): RpcError =>
  new RpcError(RpcErrorCode.methodNotFound, 'notifications not supported');

export const subscriptionNotFound = (): RpcError => new RpcError(RpcErrorCode.server, 'subscription not found');

// ---- failures below JSON-RPC (client side) -----------------------------------------------------------------

export const RpcTransportErrorCode = {
  /** No answer within the request timeout. */
  timeout: 'RPC_TIMEOUT',
  /** Non-2xx HTTP status; `status` and `body` say which. */
  httpStatus: 'RPC_HTTP_STATUS',
  /** The connection could not be made or broke. */
  connection: 'RPC_CONNECTION',
  /** The answer was not a JSON-RPC response (or lacked the result). */
  badResponse: 'RPC_BAD_RESPONSE',
  /** The client was closed. */
  closed: 'RPC_CLOSED',
  /** The caller's AbortSignal fired. */
  aborted: 'RPC_ABORTED',
} as const;

export type RpcTransportErrorCodeValue = (typeof RpcTransportErrorCode)[keyof typeof RpcTransportErrorCode];

export class RpcTransportError extends TernError {
  /** HTTP status for RPC_HTTP_STATUS. */
  readonly status: number | undefined;
  /** Response body (truncated) for RPC_HTTP_STATUS. */
  readonly body: string | undefined;

  constructor(
    code: RpcTransportErrorCodeValue,
    message: string,
    opts: { status?: number; body?: string; cause?: unknown } = {},
  ) {
    const temporary =
      code === RpcTransportErrorCode.timeout ||
      code === RpcTransportErrorCode.connection ||
      (code === RpcTransportErrorCode.httpStatus && (opts.status === 429 || (opts.status ?? 0) >= 500));
    super(code, message, {
      ...(temporary ? { severity: 'temporary' as const } : {}),
      ...(opts.cause === undefined ? {} : { cause: opts.cause }),
    });
    this.name = 'RpcTransportError';
    this.status = opts.status;
    this.body = opts.body;
  }
}
