// tern-exec's metrics and profiling from its options, geth's way: metrics are collected with --metrics (or when
// --metrics.addr asks for the server), served only when --metrics.addr is set, pushed to InfluxDB with
// --metrics.tsdb/--metrics.tsdbv2; ethstats with --ethstats; the pprof server with --pprof; a CPU profile over
// the whole run with --pprof.cpuprofile.
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import { registerBaseMetrics } from '../../common/metrics/base.js';
import type { MetricsFactory } from '../../common/metrics/interface.js';
import type { ListenerAddress } from '../../common/metrics/listener.js';
import { MetricsRegistry } from '../../common/metrics/registry.js';
import { MetricsServer } from '../../common/metrics/server.js';
import { ProfileWriter } from '../../common/pprof/onStop.js';
import { PprofServer, type PprofServerOptions } from '../../common/pprof/server.js';
import type { RpcMetrics } from '../../common/rpc/core.js';
import { versionLine } from '../../common/version.js';
import { nativeStatus } from '../../native/index.js';
import { keccak256 } from '../../native/keccak.js';
import type { Header } from '../../primitives/block/header.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { ChainStore } from '../chain/chainStore.js';
import { headEvents } from '../chain/headEvents.js';
import { type EthstatsBackend, type EthstatsBlock, EthstatsReporter } from './ethstats.js';
import { ChainMetrics, gethRpcMetrics, TxPoolMetrics } from './geth.js';
import { type InfluxOptions, InfluxReporter, parseTags } from './influx.js';
import { ChainProgress, type ChainProgressSource } from './progress.js';

/** tern-exec's --metrics*, --pprof* and --ethstats flags (cli/execOptions.ts). */
export interface ExecObservabilityOptions {
  /** --metrics */
  metrics: boolean;
  /** --metrics.addr: the metrics server listens there; undefined serves none. */
  metricsAddr: string | undefined;
  /** --metrics.port */
  metricsPort: number;
  /** --metrics.expensive */
  expensive: boolean;
  /** --metrics.tsdb / --metrics.tsdbv2 and their settings (tags unparsed); undefined pushes nothing. */
  influx: (Omit<InfluxOptions, 'tags'> & { tags: string[] }) | undefined;
  /** --pprof and its listener; undefined serves none. */
  pprof: PprofServerOptions | undefined;
  /** --pprof.cpuprofile: a CPU profile of the whole run written there at exit. */
  cpuProfile: string | undefined;
  /** --ethstats URL. */
  ethstats: string | undefined;
  /** --networkid as given (ethstats reports the chain id when it is 0). */
  networkId: number;
}

export interface ExecObservability {
  readonly registry: MetricsRegistry;
  readonly factory: MetricsFactory;
  readonly chain: ChainMetrics;
  readonly txpool: TxPoolMetrics;
  /** Collection is on (--metrics or --metrics.addr); modules may skip costly measurements when it is off. */
  readonly enabled: boolean;
  /**
   * --metrics.expensive: the worker pools' per-task wait and run histograms (pool_task_wait_seconds,
   * pool_task_run_seconds {pool, task}); without it the pools report their gauges and pool_tasks_total only.
   */
  readonly expensive: boolean;
  readonly metricsAddress: ListenerAddress | undefined;
  readonly pprofAddress: ListenerAddress | undefined;
  /** The RPC servers' request metrics (rpc/requests, rpc/duration/…); undefined when collection is off. */
  rpcMetrics(isKnown: (method: string) => boolean): RpcMetrics | undefined;
  /**
   * Once the chain is open: head gauges, the progress lines (progress.ts), ethstats, up=1 and the exit profile's
   * hook. Once per program: a second call (--dev reaches it twice) does nothing.
   */
  chainReady(store: ChainStore): void;
}

export async function startExecObservability(
  opts: ExecObservabilityOptions,
  deps: { logger: Logger; lifecycle: Lifecycle },
): Promise<ExecObservability> {
  const { lifecycle } = deps;
  const logger = deps.logger.child('metrics');
  const addr = opts.metricsAddr;
  const enabled = opts.metrics || (addr !== undefined && addr !== '');
  const registry = new MetricsRegistry({ defaultMetrics: enabled });
  const factory = registry.factory();
  const expensive = enabled && opts.expensive;
  if (opts.expensive && !enabled) logger.warn('--metrics.expensive has no effect without --metrics');
  const base = registerBaseMetrics(
    factory,
    { version: versionLine(), native: nativeStatus() },
    { taskTimings: expensive },
  );
  const chain = new ChainMetrics(factory);
  const txpool = new TxPoolMetrics(factory);

  let metricsAddress: ListenerAddress | undefined;
  if (addr !== undefined && addr !== '') {
    const server = new MetricsServer({ host: addr, port: opts.metricsPort, style: 'geth' }, { logger, registry });
    lifecycle.onStop('metrics server', () => server.stop());
    metricsAddress = await server.start();
  }
  if (opts.influx !== undefined) {
    if (!enabled) logger.warn('--metrics.tsdb needs --metrics to collect anything; pushing the base set only');
    const influx = new InfluxReporter(
      { ...opts.influx, tags: parseTags(opts.influx.tags) },
      { registry, logger: deps.logger.child('influxdb') },
    );
    influx.start();
    lifecycle.onStop('influxdb', () => influx.stop());
  }

  const pprofAddress = await startPprofServer(opts.pprof, deps);
  const cpuprofile = opts.cpuProfile;
  let writer: ProfileWriter | undefined;
  if (cpuprofile !== undefined && cpuprofile !== '') {
    writer = new ProfileWriter({ type: 'cpu', path: cpuprofile }, { logger: deps.logger.child('pprof') });
    await writer.start();
  }

  let ready = false;
  return {
    registry,
    factory,
    chain,
    txpool,
    enabled,
    expensive,
    metricsAddress,
    pprofAddress,
    rpcMetrics: (isKnown) => (enabled ? gethRpcMetrics(factory, isKnown) : undefined),
    chainReady(store) {
      if (ready) return;
      ready = true;
      const progress = new ChainProgress(
        {},
        { logger: deps.logger.child('chain'), source: chainProgressSource(store) },
      );
      const unsubscribe = headEvents(store.db).on((ev) => progress.onHead(ev));
      lifecycle.onStop('chain progress', () => unsubscribe());
      chain.setHeads(() => {
        const safe = store.safeHash();
        const finalized = store.finalizedHash();
        const num = (h: Uint8Array | undefined) => (h === undefined ? undefined : store.headerByHash(h)?.number);
        const s = num(safe);
        const f = num(finalized);
        return {
          block: Number(store.head().number),
          ...(s !== undefined ? { safe: Number(s) } : {}),
          ...(f !== undefined ? { finalized: Number(f) } : {}),
        };
      });
      const ethstats = opts.ethstats;
      if (ethstats !== undefined && ethstats !== '') {
        const reporter = new EthstatsReporter(
          {
            url: ethstats,
            client: `tern-exec/v${versionLine()}/${process.platform}-${process.arch}/node${process.version}`,
          },
          { backend: chainStoreEthstatsBackend(store, opts.networkId), logger: deps.logger.child('ethstats') },
        );
        reporter.start();
        lifecycle.onStop('ethstats', () => reporter.stop());
      }
      base.recordUp();
      if (writer !== undefined) {
        const w = writer;
        // Registered last so it runs first at shutdown, while the worker pools can still answer.
        lifecycle.onStop('exit profile', () => w.write().then(() => undefined));
      }
    },
  };
}

/** The progress lines' view of the chain store: transaction counts and canonical blocks of a head jump. */
export function chainProgressSource(store: ChainStore): ChainProgressSource {
  return {
    txCount: (hash) => store.blockByHash(hash)?.transactions.length,
    canonical(n) {
      const hash = store.canonicalHash(n);
      const block = hash === undefined ? undefined : store.blockByHash(hash);
      return block === undefined ? undefined : { gasUsed: block.header.gasUsed, txs: block.transactions.length };
    },
  };
}

function ethstatsBlock(header: Header, hash: Uint8Array, txs: readonly Uint8Array[]): EthstatsBlock {
  return {
    number: header.number,
    hash: hex(hash),
    parentHash: hex(header.parentHash),
    timestamp: header.timestamp,
    miner: hex(header.coinbase),
    gasUsed: header.gasUsed,
    gasLimit: header.gasLimit,
    difficulty: header.difficulty,
    // A typed transaction's hash is keccak of its envelope, a legacy one's of its RLP: both are the raw bytes.
    transactions: txs.map((tx) => hex(keccak256(tx))),
    transactionsRoot: hex(header.transactionsRoot),
    stateRoot: hex(header.stateRoot),
  };
}

/** The ethstats view of the chain store; the pool, peers and sync state are not built yet and report 0/false. */
export function chainStoreEthstatsBackend(store: ChainStore, networkId: number): EthstatsBackend {
  const config = store.config();
  return {
    head() {
      const h = store.head();
      return ethstatsBlock(h.header, h.hash, store.blockByHash(h.hash)?.transactions ?? []);
    },
    blockByNumber(n) {
      const hash = store.canonicalHash(n);
      const block = hash === undefined ? undefined : store.blockByHash(hash);
      return hash === undefined || block === undefined
        ? undefined
        : ethstatsBlock(block.header, hash, block.transactions);
    },
    pendingCount: () => 0,
    peerCount: () => 0,
    syncing: () => false,
    gasPrice: () => store.head().header.baseFeePerGas ?? 0n,
    networkId: String(networkId || config.chainId),
    chainId: String(config.chainId),
  };
}

/** Runs a sub-command (import) under --pprof.cpuprofile: the profile covers the command and is written when it ends. */
/** The pprof listener (--pprof), stopped with the program; undefined when off. */
export async function startPprofServer(
  opts: PprofServerOptions | undefined,
  deps: { logger: Logger; lifecycle: Lifecycle },
): Promise<ListenerAddress | undefined> {
  if (opts === undefined) return undefined;
  const server = new PprofServer(opts, { logger: deps.logger.child('pprof') });
  deps.lifecycle.onStop('pprof server', () => server.stop());
  return server.start();
}

/** `tern-exec import` under the profilers: the pprof listener while it runs (--pprof), the CPU profile at exit. */
export async function withImportProfiling<T>(
  opts: ExecObservabilityOptions,
  deps: { logger: Logger; lifecycle: Lifecycle },
  run: () => Promise<T>,
): Promise<T> {
  await startPprofServer(opts.pprof, deps);
  return withCpuProfile(opts.cpuProfile, deps, run);
}

export async function withCpuProfile<T>(
  path: string | undefined,
  deps: { logger: Logger },
  run: () => Promise<T>,
): Promise<T> {
  if (path === undefined || path === '') return run();
  const writer = new ProfileWriter({ type: 'cpu', path }, { logger: deps.logger.child('pprof') });
  await writer.start();
  try {
    return await run();
  } finally {
    await writer.write();
  }
}
