// tern-exec's metrics and profiling from its settings, geth's way: metrics are collected with --metrics (or when
// --metrics.addr asks for the server), served only when --metrics.addr is set, pushed to InfluxDB with
// --metrics.tsdb/--metrics.tsdbv2; ethstats with --ethstats; the pprof server with --pprof; a CPU profile over
// the whole run with --pprof.cpuprofile.
import type { Settings } from '../../cli/parse.js';
import type { ProgramContext } from '../../cli/run.js';
import { UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger } from '../../common/logger/index.js';
import { registerBaseMetrics } from '../../common/metrics/base.js';
import type { MetricsFactory } from '../../common/metrics/interface.js';
import type { ListenerAddress } from '../../common/metrics/listener.js';
import { MetricsRegistry } from '../../common/metrics/registry.js';
import { MetricsServer } from '../../common/metrics/server.js';
import { ProfileWriter } from '../../common/pprof/onStop.js';
import { PprofServer } from '../../common/pprof/server.js';
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
import { InfluxReporter, parseTags } from './influx.js';
import { ChainProgress, type ChainProgressSource } from './progress.js';

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

/** Fails with a clear message for what Node cannot do (called before anything starts). */
export function checkExecObservabilitySettings(settings: Settings): void {
  const trace = settings.get<string | undefined>('go-execution-trace');
  if (trace !== undefined && trace !== '') {
    throw new UsageError(
      '--go-execution-trace: Node.js has no Go execution tracer. Use --pprof.cpuprofile=<file> for a CPU profile of ' +
        'every thread over the whole run, or the pprof server (--pprof) for profiles on demand',
    );
  }
  if (settings.get<boolean>('metrics.tsdb') && settings.get<boolean>('metrics.tsdbv2')) {
    throw new UsageError('--metrics.tsdb and --metrics.tsdbv2 are mutually exclusive');
  }
}

export async function startExecObservability(
  settings: Settings,
  deps: { logger: Logger; lifecycle: Lifecycle },
): Promise<ExecObservability> {
  checkExecObservabilitySettings(settings);
  const { lifecycle } = deps;
  const logger = deps.logger.child('metrics');
  const get = <T>(name: string): T => settings.get<T>(name);
  const addr = get<string | undefined>('metrics.addr');
  const enabled = get<boolean>('metrics') || (addr !== undefined && addr !== '');
  const registry = new MetricsRegistry({ defaultMetrics: enabled });
  const factory = registry.factory();
  const expensive = enabled && get<boolean>('metrics.expensive');
  if (get<boolean>('metrics.expensive') && !enabled) logger.warn('--metrics.expensive has no effect without --metrics');
  const base = registerBaseMetrics(
    factory,
    { version: versionLine(), native: nativeStatus() },
    { taskTimings: expensive },
  );
  const chain = new ChainMetrics(factory);
  const txpool = new TxPoolMetrics(factory);

  let metricsAddress: ListenerAddress | undefined;
  if (addr !== undefined && addr !== '') {
    const server = new MetricsServer(
      { host: addr, port: get<number>('metrics.port'), style: 'geth' },
      { logger, registry },
    );
    lifecycle.onStop('metrics server', () => server.stop());
    metricsAddress = await server.start();
  }
  const v1 = get<boolean>('metrics.tsdb');
  const v2 = get<boolean>('metrics.tsdbv2');
  if (v1 || v2) {
    if (!enabled) logger.warn('--metrics.tsdb needs --metrics to collect anything; pushing the base set only');
    const influx = new InfluxReporter(
      {
        endpoint: get<string>('metrics.tsdb.endpoint'),
        version: v2 ? 2 : 1,
        database: get<string>('metrics.tsdb.database'),
        username: get<string>('metrics.tsdb.username'),
        password: get<string>('metrics.tsdb.password'),
        token: get<string>('metrics.tsdb.token'),
        organization: get<string>('metrics.tsdb.organization'),
        bucket: get<string>('metrics.tsdb.bucket'),
        tags: parseTags(get<string[]>('metrics.tsdb.tags')),
      },
      { registry, logger: deps.logger.child('influxdb') },
    );
    influx.start();
    lifecycle.onStop('influxdb', () => influx.stop());
  }

  const pprofAddress = await startPprofServer(settings, deps);
  const cpuprofile = get<string | undefined>('pprof.cpuprofile');
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
      const ethstats = get<string | undefined>('ethstats');
      if (ethstats !== undefined && ethstats !== '') {
        const reporter = new EthstatsReporter(
          {
            url: ethstats,
            client: `tern-exec/v${versionLine()}/${process.platform}-${process.arch}/node${process.version}`,
          },
          { backend: chainStoreEthstatsBackend(store, settings), logger: deps.logger.child('ethstats') },
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
export function chainStoreEthstatsBackend(store: ChainStore, settings: Settings): EthstatsBackend {
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
    networkId: String(settings.get<number>('networkid') || config.chainId),
    chainId: String(config.chainId),
  };
}

/** Runs a sub-command (import) under --pprof.cpuprofile: the profile covers the command and is written when it ends. */
/** The pprof listener (--pprof), stopped with the program; undefined when off. */
export async function startPprofServer(
  settings: Settings,
  deps: { logger: Logger; lifecycle: Lifecycle },
): Promise<ListenerAddress | undefined> {
  if (!settings.get<boolean>('pprof')) return undefined;
  const blockRate = settings.get<number>('pprof.blockprofilerate');
  const server = new PprofServer(
    {
      host: settings.get<string>('pprof.addr'),
      port: settings.get<number>('pprof.port'),
      memProfileRate: settings.get<number>('pprof.memprofilerate'),
      // Go's rate is nanoseconds of blocking per sample; Node measures event-loop delay in ms ticks.
      blockResolutionMs: blockRate > 0 ? Math.max(1, Math.round(blockRate / 1e6)) : 0,
    },
    { logger: deps.logger.child('pprof') },
  );
  deps.lifecycle.onStop('pprof server', () => server.stop());
  return server.start();
}

/** `tern-exec import` under the profilers: the pprof listener while it runs (--pprof), the CPU profile at exit. */
export async function withImportProfiling<T>(ctx: ProgramContext, run: () => Promise<T>): Promise<T> {
  await startPprofServer(ctx.settings, { logger: ctx.log.logger, lifecycle: ctx.lifecycle });
  return withCpuProfile(ctx, run);
}

export async function withCpuProfile<T>(ctx: ProgramContext, run: () => Promise<T>): Promise<T> {
  const path = ctx.settings.get<string | undefined>('pprof.cpuprofile');
  if (path === undefined || path === '') return run();
  const writer = new ProfileWriter({ type: 'cpu', path }, { logger: ctx.log.logger.child('pprof') });
  await writer.start();
  try {
    return await run();
  } finally {
    await writer.write();
  }
}
