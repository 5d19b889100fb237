// tern-node's running replica, built from its options: rollup config (--rollup.config or --network, with
// --override.*), L1 client and head tracking, beacon client, engine over HTTP with JWT (or one handed in, as
// tern-pair hands in the in-process engine), derivation pipeline, engine
// controller, safe-head database, driver, protocol-version watcher and the RPC server. main.ts calls startReplica
// once; every piece registers its stop hook on the lifecycle (listeners first at shutdown, databases last).
import { readFileSync } from 'node:fs';
import { TernError, UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger, LogLevel } from '../../common/logger/index.js';
import type { OpNodeMetrics } from '../../common/metrics/opNode.js';
import type { RpcServerAddress } from '../../common/rpc/http.js';
import { createNodeRpcServer } from '../../common/rpc/listeners.js';
import { RpcRegistry } from '../../common/rpc/registry.js';
import { buildInfo } from '../../common/version.js';
import { knownL1ChainConfig, resolveL1ChainConfig } from '../../networks/l1ChainConfig.js';
import { registryNetwork } from '../../networks/registry.js';
import { loadNetworkRollupConfig } from '../../networks/rollupConfig.js';
import type { L2BlockRef, L1BlockRef as RollupL1Ref } from '../../primitives/rollup/blockRef.js';
import {
  applyOverrides,
  type ForkOverrides,
  parseRollupConfig,
  type RollupConfig,
} from '../../primitives/rollup/config.js';
import type { L1ChainConfig } from '../../primitives/rollup/l1ChainConfig.js';
import { type AltDaNodeOptions, setupAltDa } from '../derive/altda/setup.js';
import { createDecompressPool, PooledChannelDecompressor } from '../derive/decompressPooled.js';
import { DerivationPipeline } from '../derive/pipeline.js';
import { fromHex } from '../derive/types.js';
import { initializesCrossL2InboxAtInterop } from '../derive/upgrades/interop.js';
import { EngineController } from '../engine/engineController.js';
import { type EngineKind, HttpEngine } from '../engine/http.js';
import type { Engine } from '../engine/interface.js';
import { type InteropOptions, readDependencySet, startInterop } from '../interop/setup.js';
import { BeaconClient, type BeaconClientOptions } from '../l1/beacon.js';
import { createBlobPool, PooledBlobVerifier } from '../l1/blobVerifierPooled.js';
import { L1Client, type L1ClientOptions } from '../l1/client.js';
import { withConfDepth } from '../l1/confDepth.js';
import { L1Heads } from '../l1/heads.js';
import { type P2POptions, setupP2P } from '../p2p/setup.js';
import { registerOptimismApi } from '../rpc/optimism.js';
import { DisabledSafeDb, SafeDb, type SafeHeadStore } from '../safedb/safedb.js';
import { type SequencingOptions, setupSequencing } from '../sequencer/setup.js';
import { openSnapshotLog } from '../snapshotLog.js';
import { Driver, type SyncMode } from './driver.js';
import { type HaltLevel, ProtocolVersionsWatcher } from './protocolVersions.js';

/**
 * Makes the engine the replica drives instead of the HTTP engine of --l2 (tern-pair: the in-process engine over
 * the tern-exec in the same process). Called once, with the rollup config, before anything reads layer 2.
 */
export type EngineFactory = (
  config: RollupConfig,
  deps: { logger: Logger; metrics?: OpNodeMetrics | undefined },
) => Engine;

/** Where the rollup config comes from: --rollup.config or --network, with the --override.* fork times set. */
export interface RollupConfigSource {
  path: string | undefined;
  network: string | undefined;
  /** Fork name to activation time, only the overrides given (> 0). */
  overrides: Record<string, number>;
}

/** tern-node's replica options (cli/nodeOptions.ts builds them from the flags). */
export interface ReplicaOptions {
  rollupConfig: RollupConfigSource;
  /** --rollup.l1-chain-config */
  l1ChainConfigPath: string | undefined;
  /** --l2 (the first endpoint is used), --l2.engine-rpc-timeout, --l2.enginekind */
  engine: { urls: readonly string[]; timeoutMs: number; kind: EngineKind };
  /** --fetch-withdrawal-root-from-state (the HTTP and the in-process engine alike) */
  fetchWithdrawalRootFromState: boolean;
  /** --l1, --l1.rpckind, --l1.trustrpc, --l1.rpc-max-batch-size, --l1.max-concurrency, --l1.rpc-rate-limit, --l1.cache-size */
  l1: Omit<L1ClientOptions, 'seqWindowSize'>;
  /** --l1.beacon (undefined: no blob batches), --l1.beacon-fallbacks, --l1.beacon-header, --l1.beacon.* */
  beacon: Omit<BeaconClientOptions, 'url'> & { url: string | undefined };
  /** --safedb.path; undefined keeps no safe-head database. */
  safeDbPath: string | undefined;
  /** --p2p.* */
  p2p: P2POptions;
  /** --altda.* */
  altDa: AltDaNodeOptions;
  /** --interop.* */
  interop: InteropOptions;
  /** --snapshotlog.file; undefined writes no snapshot log. */
  snapshotLogFile: string | undefined;
  /** --verifier.l1-confs */
  verifierL1Confs: number;
  /** --syncmode */
  syncMode: SyncMode;
  /** --l1.http-poll-interval, --l1.epoch-poll-interval (ms) */
  l1Heads: { httpPollIntervalMs: number; epochPollIntervalMs: number };
  /** --rollup.load-protocol-versions, --rollup.halt, --l1.runtime-config-reload-interval (ms) */
  protocolVersions: { load: boolean; halt: HaltLevel | undefined; intervalMs: number };
  /** --rpc.addr, --rpc.port */
  rpc: { host: string; port: number };
  sequencing: SequencingOptions;
}

export interface ReplicaContext {
  options: ReplicaOptions;
  logger: Logger;
  lifecycle: Lifecycle;
  /** The engine JWT secret (--l2.jwt-secret, loaded or generated by main.ts); unused with `engine`. */
  jwtSecret?: Uint8Array | undefined;
  /** An engine of the caller's instead of --l2 over HTTP; --l2 and --l2.jwt-secret are then not read. */
  engine?: EngineFactory | undefined;
  metrics?: OpNodeMetrics | undefined;
  /** The node must stop: a critical derivation error, or --rollup.halt. */
  onFatal(reason: string): void;
  /** The root logger's setLevel (admin_setLogLevel). */
  setLogLevel?: ((level: LogLevel) => void) | undefined;
}

export interface Replica {
  config: RollupConfig;
  driver: Driver;
  rpcAddress: RpcServerAddress;
  /** The interop RPC server's address, when --interop.rpc.addr is set. */
  interopRpcAddress: RpcServerAddress | undefined;
}

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read the ${what} ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`the ${what} ${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/** --rollup.config or --network, then the --override.* fork times. Config errors are usage errors. */
export function loadRollupConfig(source: RollupConfigSource): RollupConfig {
  const { path, network, overrides } = source;
  let cfg: RollupConfig;
  try {
    if (path !== undefined && path !== '') cfg = parseRollupConfig(readJson(path, 'rollup config'));
    else if (network !== undefined && network !== '') cfg = loadNetworkRollupConfig(network);
    else throw new UsageError('a rollup configuration is required: pass --network or --rollup.config');
    return Object.keys(overrides).length === 0 ? cfg : applyOverrides(cfg, overrides as ForkOverrides);
  } catch (err) {
    if (err instanceof TernError && err.code === 'ROLLUP_CONFIG') throw new UsageError(err.message);
    throw err;
  }
}

function loadL1ChainConfig(path: string | undefined, cfg: RollupConfig, logger: Logger): L1ChainConfig | undefined {
  const json = path === undefined || path === '' ? undefined : readJson(path, 'L1 chain config');
  if (json === undefined && knownL1ChainConfig(cfg.l1ChainId) === undefined) {
    logger.warn('No L1 chain config for this L1: blob base fees use the Cancun schedule (--rollup.l1-chain-config)', {
      l1ChainId: cfg.l1ChainId.toString(),
    });
    return undefined;
  }
  try {
    return resolveL1ChainConfig(cfg, json);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

const toRollupRef = (r: { hash: string; number: number; parentHash: string; timestamp: number }): RollupL1Ref => r;
const hashBytes = (h: string) => fromHex(h);

/** The engine over HTTP at the first --l2 endpoint, with the JWT secret. */
function httpEngine(ctx: ReplicaContext, config: RollupConfig): HttpEngine {
  const { options, logger, metrics } = ctx;
  const l2Urls = options.engine.urls;
  const l2Url = l2Urls[0];
  if (l2Url === undefined) throw new UsageError("--l2 is required: the execution engine's authenticated RPC URL");
  if (l2Urls.length > 1) logger.warn('Only the first --l2 endpoint is used', { url: l2Url });
  if (ctx.jwtSecret === undefined) throw new Error('startReplica: an HTTP engine needs the JWT secret');
  return new HttpEngine(
    config,
    {
      url: l2Url,
      jwtSecret: ctx.jwtSecret,
      timeoutMs: options.engine.timeoutMs,
      kind: options.engine.kind,
      fetchWithdrawalRootFromState: options.fetchWithdrawalRootFromState,
    },
    { logger, signal: ctx.lifecycle.signal, metrics },
  );
}

export async function startReplica(ctx: ReplicaContext): Promise<Replica> {
  const { options, lifecycle, metrics } = ctx;
  const logger = ctx.logger;
  const signal = lifecycle.signal;
  const config = loadRollupConfig(options.rollupConfig);
  const l1ChainConfig = loadL1ChainConfig(options.l1ChainConfigPath, config, logger);
  const { path: rollupPath, network } = options.rollupConfig;
  const dependencySet = readDependencySet(
    options.interop,
    logger,
    (rollupPath === undefined || rollupPath === '') && network !== undefined && network !== ''
      ? { network, dependencies: registryNetwork(network)?.chain.interop?.dependencies }
      : undefined,
  );
  const interopAt = config.forks.interop;
  if (interopAt !== undefined && interopAt > config.genesis.l2Time) {
    // The interop activation block initializes the CrossL2Inbox only for a dependency set of two or more chains.
    if (dependencySet === undefined) {
      logger.warn('Interop is scheduled without --interop.dependency-set: the CrossL2Inbox will not be initialized', {
        interopTime: interopAt,
      });
    } else {
      const initializesCrossL2Inbox = initializesCrossL2InboxAtInterop(dependencySet);
      logger.info('Interop activation', { interopTime: interopAt, initializesCrossL2Inbox });
    }
  }
  logger.info('Rollup config', {
    l2ChainId: config.l2ChainId.toString(),
    l1ChainId: config.l1ChainId.toString(),
    genesisL2: config.genesis.l2.number,
    blockTime: config.blockTime,
  });

  const engine = ctx.engine ? ctx.engine(config, { logger, metrics }) : httpEngine(ctx, config);
  lifecycle.onStop('engine client', () => engine.close());

  const l1 = new L1Client(
    { ...options.l1, seqWindowSize: config.seqWindowSize },
    { logger, signal, metrics: metrics?.l1ClientMetrics() },
  );
  lifecycle.onStop('l1 client', () => l1.close());

  let blobs: BeaconClient | undefined;
  const beaconUrl = options.beacon.url;
  if (beaconUrl !== undefined && beaconUrl !== '') {
    const pool = createBlobPool();
    lifecycle.onStop('blob pool', () => pool.close());
    blobs = new BeaconClient(
      { ...options.beacon, url: beaconUrl },
      { logger, verifier: new PooledBlobVerifier(pool), signal },
    );
    await blobs.start();
  } else {
    logger.warn('No --l1.beacon: blob batches cannot be read (calldata batches still are)');
  }

  const { safeDbPath } = options;
  const safeDb: SafeHeadStore =
    safeDbPath === undefined || safeDbPath === '' ? new DisabledSafeDb() : SafeDb.open(safeDbPath, { logger });
  lifecycle.onStop('safe head db', () => safeDb.close());
  const snapshotLog = openSnapshotLog(options.snapshotLogFile, { logger });
  lifecycle.onStop('snapshot log', () => snapshotLog.close());

  let heads: L1Heads | undefined;
  const derivationL1 = withConfDepth(l1, options.verifierL1Confs, () => heads?.last('latest'));
  const decompressPool = createDecompressPool();
  lifecycle.onStop('decompression pool', () => decompressPool.close());
  const altDa = setupAltDa(options.altDa, config, derivationL1, { logger, metrics: metrics?.factory });
  const pipeline = new DerivationPipeline(
    config,
    { l1: derivationL1, blobs, l2: engine },
    // Interop managed mode: the supervisor hands derivation its L1 blocks (interop_provideL1).
    { l1ChainConfig, altDa: altDa?.inputs, managedL1: options.interop.rpcAddr.trim() !== '', dependencySet },
    {
      logger,
      decompress: new PooledChannelDecompressor(decompressPool).decompress,
      ...(metrics ? { drops: metrics.derivationDropCounter() } : {}),
    },
  );
  const recordL2 = metrics
    ? (type: string, ref: L2BlockRef) =>
        metrics.recordL2Ref(type, {
          number: ref.number,
          time: ref.timestamp,
          hash: hashBytes(ref.hash),
          l1Origin: { number: ref.l1origin.number, hash: hashBytes(ref.l1origin.hash) },
          sequenceNumber: ref.sequenceNumber,
        })
    : undefined;
  const controller = new EngineController(config, engine, {
    logger,
    elSync: options.syncMode === 'execution-layer',
    metrics: recordL2 && { recordL2Ref: recordL2 },
  });
  const driver = new Driver(
    config,
    { syncMode: options.syncMode },
    { l1: derivationL1, derivation: pipeline, engine: controller, safeDb },
    {
      logger,
      signal,
      onCritical: (err) => ctx.onFatal(`derivation stopped: ${err.message}`),
      metrics: metrics && {
        recordPipelineReset: () => metrics.pipelineResets.record(),
        recordDerivationError: () => metrics.derivationErrors.record(),
        setDerivationIdle: (idle) => metrics.derivationIdle.set(idle ? 1 : 0),
        recordL1ReorgDepth: (depth) => metrics.l1ReorgDepth.observe(depth),
        recordL1Ref: (type, ref) =>
          metrics.recordRef('l1', type, { number: ref.number, time: ref.timestamp, hash: hashBytes(ref.hash) }),
      },
    },
  );
  lifecycle.onStop('driver', () => driver.stop());

  heads = new L1Heads(
    l1,
    (label, ref) => {
      // Alt-DA: an L2 block is final only once its inputs can no longer be challenged.
      if (label === 'finalized' && altDa !== undefined) {
        const lagged = ref.number - altDa.finalityLag;
        if (lagged < 0) return;
        l1.blockRefByNumber(lagged).then(
          (r) => driver.onL1Head(label, toRollupRef(r)),
          (err) => logger.debug('alt-DA: lagged L1 finalized block unavailable', { number: lagged, err: String(err) }),
        );
        return;
      }
      driver.onL1Head(label, toRollupRef(ref));
    },
    {
      ...options.l1Heads,
      verify: !options.l1.trustRpc,
    },
    { logger, signal },
  );
  lifecycle.onStop('l1 heads', () => heads?.stop());
  // In the background: an unreachable L1 must not hold up startup (the driver retries until L1 answers).
  void heads.start();

  const { halt } = options.protocolVersions;
  if (options.protocolVersions.load || (halt !== undefined && halt !== 'none')) {
    const address = config.protocolVersionsAddress;
    if (address === undefined || /^0x0+$/.test(address)) {
      logger.warn('The rollup config names no ProtocolVersions contract: protocol versions are not loaded');
    } else {
      const watcher = new ProtocolVersionsWatcher(
        { address, haltLevel: halt, intervalMs: options.protocolVersions.intervalMs },
        {
          logger,
          signal,
          call: (to, data) => l1.rpc.call<string>('eth_call', [{ to, data }, 'latest']),
          onHalt: (reason) => {
            logger.error('Halting: incompatible protocol version required', { reason });
            ctx.onFatal(reason);
          },
        },
      );
      lifecycle.onStop('protocol versions', () => watcher.stop());
      await watcher.start();
    }
  }

  // Interop managed mode (--interop.rpc.addr): the supervisor's RPC server and its view of the heads.
  const interop = await startInterop(
    {
      options: options.interop,
      config,
      logger,
      lifecycle,
      engine,
      controller,
      driver,
      l1: { blockRefByHash: (hash) => l1.blockRefByHash(hash).then(toRollupRef) },
      derivationOrigin: () => pipeline.origin(),
      traversal: pipeline.traversal,
      blockReceipts: engine instanceof HttpEngine ? (hash) => engine.blockReceipts(hash) : undefined,
    },
    dependencySet,
  );
  const managed = interop.managed;

  const registry = new RpcRegistry();
  const info = buildInfo();
  registerOptimismApi(registry, {
    config,
    syncStatus: () => (managed ? managed.syncStatus(driver.syncStatus()) : driver.syncStatus()),
    outputAtBlock: (num) => engine.outputV0AtBlock(num),
    safeDb,
    version: `v${info.version}${info.commit ? `-${info.commit.slice(0, 8)}` : '-untagged'}`,
    recordRequest: metrics && ((method) => metrics.recordRpcServerRequest(method)),
  });
  // Peer-to-peer: block gossip, req-resp sync and the opp2p namespace (p2p/setup.ts); undefined with --p2p.disable.
  const p2p = await setupP2P({
    options: options.p2p,
    config,
    logger,
    lifecycle,
    l1Call: (method, params) => l1.rpc.call(method, params),
    engine,
    controller,
    driver,
    registry,
    metrics: metrics?.p2pMetrics(),
  });
  // Sequencer mode, signing, conductor and the admin namespace (sequencer/setup.ts).
  const sequencing = await setupSequencing({
    options: options.sequencing,
    gossip: p2p,
    config,
    logger,
    lifecycle,
    metrics,
    l1,
    l1Head: () => heads?.last('latest'),
    l1ChainConfig,
    dependencySet,
    engine,
    controller,
    driver,
    registry,
    setLogLevel: ctx.setLogLevel,
    onFatal: ctx.onFatal,
    snapshotLog,
  });
  const server = createNodeRpcServer(options.rpc, { registry, logger, signal });
  lifecycle.onStop('rpc server', () => server.stop());
  const rpcAddress = await server.start();
  logger.info('RPC server listening', { url: rpcAddress.url });

  driver.start();
  await p2p?.start();
  await sequencing.start();
  return { config, driver, rpcAddress, interopRpcAddress: interop.rpcAddress };
}
