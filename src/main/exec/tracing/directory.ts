// The tracers debug_trace* can name (geth's tracers.DefaultDirectory, native part): the struct logger when no name
// is given, callTracer and noopTracer. geth takes any other name as JavaScript tracer code, and a bare unknown name
// fails there as an undefined identifier: the same error (code -32000) is answered here. JavaScript tracers are not
// supported.
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { TracerBase } from './base.js';
import { CallTracer } from './callTracer.js';
import type { TraceConfig } from './config.js';
import { NoopTracer } from './noop.js';
import { StructLogger } from './structLogger.js';

/** Names of the built-in tracers (for --help and errors). */
export const TRACER_NAMES = ['callTracer', 'noopTracer'] as const;

function objectConfig(v: unknown, tracer: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw serverError(`json: cannot unmarshal non-object into ${tracer} config`);
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k.toLowerCase(), x]));
}

function flag(cfg: Record<string, unknown>, name: string): boolean | undefined {
  const v = cfg[name.toLowerCase()];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean')
    throw serverError(`json: cannot unmarshal ${typeof v} into Go struct field config.${name} of type bool`);
  return v;
}

/** A fresh tracer for one transaction, as the config selects it. */
export function createTracer(cfg: TraceConfig): TracerBase {
  const name = cfg.tracer;
  if (name === undefined || name === '') return new StructLogger(cfg.logger);
  switch (name) {
    case 'callTracer': {
      const c = objectConfig(cfg.tracerConfig, name);
      return new CallTracer({ onlyTopCall: flag(c, 'onlyTopCall'), withLog: flag(c, 'withLog') });
    }
    case 'noopTracer':
      return new NoopTracer();
    default:
      if (/^[A-Za-z_$][\w$]*$/.test(name)) throw serverError(`ReferenceError: ${name} is not defined`);
      throw serverError(`JavaScript tracers are not supported; built-in tracers: ${TRACER_NAMES.join(', ')}`);
  }
}
