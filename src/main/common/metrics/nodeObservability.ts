// tern-node's metrics and profiling from its options (--metrics.*, --pprof.*): the op-node metric set on one
// registry, the servers when enabled, and the profile written at exit. The replica's modules record through the
// returned factory and OpNodeMetrics.
import { nativeStatus } from '../../native/index.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../logger/index.js';
import { type ProfileType, ProfileWriter } from '../pprof/onStop.js';
import { PprofServer } from '../pprof/server.js';
import { versionLine } from '../version.js';
import { registerBaseMetrics } from './base.js';
import type { MetricsFactory } from './interface.js';
import type { ListenerAddress } from './listener.js';
import { OP_NODE_NAMESPACE, OpNodeMetrics } from './opNode.js';
import { MetricsRegistry } from './registry.js';
import { MetricsServer } from './server.js';

/** tern-node's --metrics.* and --pprof.* flags (cli/nodeOptions.ts). */
export interface NodeObservabilityOptions {
  /** --metrics.addr and --metrics.port with --metrics.enabled; undefined serves no metrics. */
  metrics: { host: string; port: number } | undefined;
  /** --pprof.addr and --pprof.port with --pprof.enabled; undefined serves no profiles. */
  pprof: { host: string; port: number } | undefined;
  /** --pprof.path: a profile of the whole run written there at exit. */
  profilePath: string | undefined;
  /** --pprof.type */
  profileType: ProfileType | undefined;
}

export interface NodeObservability {
  readonly registry: MetricsRegistry;
  /** For modules' own metrics (names get the op_node_default_ prefix). */
  readonly factory: MetricsFactory;
  readonly opNode: OpNodeMetrics;
  readonly metricsAddress: ListenerAddress | undefined;
  readonly pprofAddress: ListenerAddress | undefined;
  /** Sets op_node_default_up to 1 and arms the exit profile's hook; call when the node has started. */
  recordUp(): void;
}

export async function startNodeObservability(
  opts: NodeObservabilityOptions,
  deps: { logger: Logger; lifecycle: Lifecycle },
): Promise<NodeObservability> {
  const { lifecycle } = deps;
  const logger = deps.logger.child('metrics');
  const registry = new MetricsRegistry({ namespace: OP_NODE_NAMESPACE });
  const factory = registry.factory();
  const base = registerBaseMetrics(factory, { version: versionLine(), native: nativeStatus() });
  const opNode = new OpNodeMetrics(factory);

  let metricsAddress: ListenerAddress | undefined;
  if (opts.metrics !== undefined) {
    const server = new MetricsServer({ ...opts.metrics, style: 'op-node' }, { logger, registry });
    lifecycle.onStop('metrics server', () => server.stop());
    metricsAddress = await server.start();
  }
  let pprofAddress: ListenerAddress | undefined;
  if (opts.pprof !== undefined) {
    const server = new PprofServer({ ...opts.pprof }, { logger: deps.logger.child('pprof') });
    lifecycle.onStop('pprof server', () => server.stop());
    pprofAddress = await server.start();
  }
  const path = opts.profilePath;
  const type = opts.profileType;
  let writer: ProfileWriter | undefined;
  if (path !== undefined && path !== '') {
    writer = new ProfileWriter({ type: type ?? 'cpu', path }, { logger: deps.logger.child('pprof') });
    await writer.start();
  } else if (type !== undefined) {
    logger.warn('--pprof.type has no effect without --pprof.path', { type });
  }
  return {
    registry,
    factory,
    opNode,
    metricsAddress,
    pprofAddress,
    recordUp: () => {
      base.recordUp();
      // Registered last so it runs first at shutdown, while the worker pools can still answer.
      if (writer !== undefined) {
        const w = writer;
        lifecycle.onStop('exit profile', () => w.write().then(() => undefined));
      }
    },
  };
}
