// The trace config of debug_traceTransaction/traceCall/traceBlock* (geth's tracers.TraceConfig): the struct logger's
// options inline (enableMemory, disableStack, disableStorage, enableReturnData, limit), `tracer` (a built-in name;
// absent for the struct logger), `tracerConfig`, and `timeout` (Go duration text, geth's default 5s). Field names
// match case-insensitively, as Go's JSON decoding does; unknown fields are ignored.
import { parseDuration } from '../../common/duration.js';
import { invalidArgument } from '../../common/rpc/params.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { StructLoggerConfig } from './structLogger.js';

/** geth's defaultTraceTimeout. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5000;

export interface TraceConfig {
  logger: StructLoggerConfig;
  tracer: string | undefined;
  tracerConfig: unknown;
  timeoutMs: number;
  /** Largest result, about its JSON bytes (--rpc.batch-response-max-size); 0 or absent for none. */
  maxResultBytes?: number | undefined;
}

type Fields = Map<string, unknown>;

function fields(v: unknown, index: number): Fields {
  if (v === undefined || v === null) return new Map();
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw invalidArgument(index, 'json: cannot unmarshal non-object into Go value of type tracers.TraceConfig');
  }
  return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k.toLowerCase(), x]));
}

function bool(f: Fields, name: string, index: number): boolean | undefined {
  const v = f.get(name.toLowerCase());
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') {
    throw invalidArgument(index, `json: cannot unmarshal ${typeof v} into Go struct field of type bool (${name})`);
  }
  return v;
}

/** Decodes the trace config at params[index] (absent or null: all defaults). */
export function decodeTraceConfig(params: readonly unknown[], index: number): TraceConfig {
  const f = fields(params[index], index);
  const limit = f.get('limit');
  if (limit !== undefined && limit !== null && (typeof limit !== 'number' || !Number.isInteger(limit))) {
    throw invalidArgument(index, 'json: cannot unmarshal into Go struct field Config.limit of type int');
  }
  const tracer = f.get('tracer');
  if (tracer !== undefined && tracer !== null && typeof tracer !== 'string') {
    throw invalidArgument(index, 'json: cannot unmarshal into Go struct field TraceConfig.Tracer of type string');
  }
  const timeout = f.get('timeout');
  let timeoutMs = DEFAULT_TRACE_TIMEOUT_MS;
  if (timeout !== undefined && timeout !== null) {
    if (typeof timeout !== 'string') {
      throw invalidArgument(index, 'json: cannot unmarshal into Go struct field TraceConfig.Timeout of type string');
    }
    const ms = parseDuration(timeout);
    if (ms === undefined) throw serverError(`time: invalid duration "${timeout}"`);
    timeoutMs = ms;
  }
  return {
    logger: {
      enableMemory: bool(f, 'enableMemory', index),
      disableStack: bool(f, 'disableStack', index),
      disableStorage: bool(f, 'disableStorage', index),
      enableReturnData: bool(f, 'enableReturnData', index),
      limit: typeof limit === 'number' ? limit : undefined,
    },
    tracer: typeof tracer === 'string' ? tracer : undefined,
    tracerConfig: f.get('tracerconfig'),
    timeoutMs,
  };
}
