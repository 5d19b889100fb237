// The metrics both programs start with: version info, up, which native functions are in use (the Rust module or
// the JS fallback), and the worker-pool set.
import type { NativeStatus } from '../../native/index.js';
import type { MetricsFactory } from './interface.js';
import { installPoolMetrics, type PoolMetricsOptions } from './pool.js';

export interface BaseMetrics {
  /** Call once the program has finished starting (op-node's RecordUp). */
  recordUp(): void;
}

/**
 * `info{version}` = 1 and `up` (0 until recordUp) — op-node's names; `native_loaded` and
 * `native_function{function, impl="native"|"js"}` = 1 per function of the native module; the pool metrics.
 */
export function registerBaseMetrics(
  factory: MetricsFactory,
  info: { version: string; native: NativeStatus },
  opts: PoolMetricsOptions = {},
): BaseMetrics {
  factory
    .gauge({ name: 'info', help: 'Pseudo-metric tracking version and config info', labelNames: ['version'] })
    .set({ version: info.version }, 1);
  const up = factory.gauge({ name: 'up', help: '1 if the node has finished starting up' });
  up.set(0);
  factory
    .gauge({
      name: 'native_loaded',
      help: '1 if the Rust native module loaded, 0 if every function uses its JS fallback',
    })
    .set(info.native.loaded ? 1 : 0);
  const fn = factory.gauge({
    name: 'native_function',
    help: 'Implementation in use per native function: impl="native" (Rust) or impl="js" (fallback)',
    labelNames: ['function', 'impl'],
  });
  for (const [name, impl] of Object.entries(info.native.functions)) fn.set({ function: name, impl }, 1);
  installPoolMetrics(factory, opts);
  return { recordUp: () => up.set(1) };
}

/** The startup line saying which native functions run in Rust and which fell back to JS (and why). */
export function logNativeStatus(
  logger: {
    info(msg: string, ctx?: Record<string, unknown>): void;
    warn(msg: string, ctx?: Record<string, unknown>): void;
  },
  native: NativeStatus,
): void {
  const names = (impl: 'native' | 'js') =>
    Object.entries(native.functions)
      .filter(([, v]) => v === impl)
      .map(([k]) => k)
      .join(',') || 'none';
  if (native.loaded) {
    logger.info('Native module loaded', { path: native.path, native: names('native'), js: names('js') });
  } else {
    logger.warn('Native module not loaded, using the JS fallback (slower)', {
      reason: native.error,
      path: native.path,
    });
  }
}
