// Sequencer mode, the admin API and block signing from tern-node's options: --sequencer.* (with the l1-confs
// check), --rpc.admin-state, --conductor.*, --p2p.sequencer.key / --signer.*, --rpc.enable-admin,
// --experimental.sequencer-api. driver/replica.ts calls setupSequencing() once the engine controller, driver and
// RPC registry exist, and start() after the driver has started.
import { TernError, UsageError } from '../../common/errors.js';
import type { Lifecycle } from '../../common/lifecycle.js';
import type { Logger, LogLevel } from '../../common/logger/index.js';
import type { OpNodeMetrics } from '../../common/metrics/opNode.js';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { L1ChainConfig } from '../../primitives/rollup/l1ChainConfig.js';
import { ConductorClient } from '../conductor/client.js';
import { disabledConductor, type SequencerConductor } from '../conductor/interface.js';
import { AttributesBuilder, type AttributesBuilderOptions } from '../derive/attributesBuilder.js';
import type { Driver } from '../driver/driver.js';
import type { EngineController } from '../engine/engineController.js';
import type { Engine } from '../engine/interface.js';
import { withConfDepth } from '../l1/confDepth.js';
import type { L1BlockRef, L1Source } from '../l1/interface.js';
import { registerAdminApi } from '../rpc/admin.js';
import { registerOpstackApi } from '../rpc/opstack.js';
import type { BlockVersion } from '../signer/gossipPayload.js';
import type { BlockSigner } from '../signer/interface.js';
import { remoteSignerDefaults } from '../signer/remote.js';
import { type SignerSetupOptions, setupBlockSigner, signGossipBlock } from '../signer/setup.js';
import { NEW_UNSAFE_PAYLOAD, type SnapshotLog } from '../snapshotLog.js';
import { AdminStateFile, initiallyStopped, type SequencerStateListener } from './adminState.js';
import { checkSequencerConfDepth, type SequencerOptions, sequencerDefaults } from './config.js';
import { OriginSelector } from './originSelector.js';
import { Sequencer } from './sequencer.js';

/** tern-node's sequencing flags (cli/nodeOptions.ts). */
export interface SequencingOptions {
  /** --sequencer.enabled */
  enabled: boolean;
  /** --sequencer.l1-confs, --sequencer.max-safe-lag, --sequencer.stopped, --sequencer.recover */
  sequencer: Pick<SequencerOptions, 'l1Confs' | 'maxSafeLag' | 'stopped' | 'recover'>;
  /** --conductor.enabled with --conductor.rpc and --conductor.rpc-timeout; undefined when off. */
  conductor: { url: string; timeoutMs: number } | undefined;
  /** --p2p.sequencer.key, --signer.* */
  signer: SignerSetupOptions;
  /** --rpc.admin-state: the sequencer's started/stopped state kept across restarts. */
  adminStatePath: string | undefined;
  /** --experimental.sequencer-api: the opstack namespace on the RPC server. */
  sequencerApi: boolean;
  /** --rpc.enable-admin */
  adminApi: boolean;
}

/** Off: no sequencer, no conductor, no signer, no extra namespaces (the flags' defaults). */
export const sequencingDefaults: SequencingOptions = {
  enabled: false,
  sequencer: {
    l1Confs: sequencerDefaults.l1Confs,
    maxSafeLag: sequencerDefaults.maxSafeLag,
    stopped: sequencerDefaults.stopped,
    recover: sequencerDefaults.recover,
  },
  conductor: undefined,
  // No key and no remote signer: blocks are not signed.
  signer: { remote: { headers: [], tls: { ...remoteSignerDefaults.tls } } },
  adminStatePath: undefined,
  sequencerApi: false,
  adminApi: false,
};

export interface SequencingContext {
  options: SequencingOptions;
  config: RollupConfig;
  logger: Logger;
  lifecycle: Lifecycle;
  metrics?: OpNodeMetrics | undefined;
  /** The plain L1 client (not the verifier's conf-depth view). */
  l1: L1Source;
  /** The latest L1 head seen (L1Heads.last('latest')). */
  l1Head: () => L1BlockRef | undefined;
  l1ChainConfig?: L1ChainConfig | undefined;
  /** The interop dependency set: whether the interop activation block initializes the CrossL2Inbox. */
  dependencySet?: AttributesBuilderOptions['dependencySet'];
  engine: Engine;
  controller: EngineController;
  driver: Driver;
  registry: RpcRegistry;
  /** Block gossip (p2p/setup.ts); undefined with --p2p.disable. */
  gossip?: { publish(version: BlockVersion, message: Uint8Array): void } | undefined;
  /** The root logger's setLevel (admin_setLogLevel). */
  setLogLevel?: ((level: LogLevel) => void) | undefined;
  onFatal(reason: string): void;
  /** --snapshotlog.file: told of each unsafe payload received through admin_postUnsafePayload. */
  snapshotLog?: SnapshotLog | undefined;
}

export interface Sequencing {
  sequencer: Sequencer | undefined;
  signer: BlockSigner | undefined;
  conductor: SequencerConductor;
  /** Starts the sequencer loop (after driver.start()). */
  start(): Promise<void>;
}

export async function setupSequencing(ctx: SequencingContext): Promise<Sequencing> {
  const { options, config, logger, lifecycle, metrics } = ctx;
  const log = logger.child('sequencing');
  const signal = lifecycle.signal;
  const { enabled } = options;
  const { l1Confs } = options.sequencer;
  if (enabled) checkSequencerConfDepth(config, l1Confs, Math.floor(Date.now() / 1000));

  let conductor: SequencerConductor = disabledConductor;
  if (options.conductor !== undefined) {
    if (!enabled) throw new UsageError('--conductor.enabled needs --sequencer.enabled');
    const c = new ConductorClient(
      { url: options.conductor.url, timeoutMs: options.conductor.timeoutMs },
      { logger, signal, metrics: metrics && { recordRpcClientRequest: (m) => metrics.recordRpcClientRequest(m) } },
    );
    lifecycle.onStop('conductor client', () => c.close());
    conductor = c;
  }

  const signer = await setupBlockSigner(options.signer, { logger, signal });
  if (signer !== undefined) lifecycle.onStop('block signer', () => signer.close());

  let sequencer: Sequencer | undefined;
  let state: SequencerStateListener | undefined;
  const statePath = options.adminStatePath;
  let stopped = options.sequencer.stopped;
  if (statePath !== undefined && statePath !== '') {
    const file = new AdminStateFile(statePath);
    try {
      stopped = initiallyStopped(stopped, file.read());
    } catch (err) {
      throw new UsageError(err instanceof TernError ? err.message : String(err));
    }
    state = file;
  }

  if (enabled) {
    if (signer === undefined) {
      log.warn('No sequencer key (--p2p.sequencer.key or --signer.*): sequenced blocks are not signed for gossip');
    }
    const origins = new OriginSelector(config, withConfDepth(ctx.l1, l1Confs, ctx.l1Head));
    const builder = new AttributesBuilder(config, ctx.l1, ctx.engine, {
      l1ChainConfig: ctx.l1ChainConfig,
      dependencySet: ctx.dependencySet,
    });
    let notGossiped = false;
    sequencer = new Sequencer(
      config,
      {
        l1Confs,
        maxSafeLag: options.sequencer.maxSafeLag,
        stopped,
        recover: options.sequencer.recover,
      },
      {
        engine: ctx.controller,
        origins,
        attributes: { prepare: (parent, epoch) => builder.prepare(parent, epoch) },
        conductor,
        exclusive: (fn) => ctx.driver.runExclusive(fn),
        requestReset: () => ctx.driver.requestReset(),
        state,
        publish:
          signer &&
          (async (env) => {
            const signed = await signGossipBlock(config, signer, env.executionPayload, env.parentBeaconBlockRoot);
            if (ctx.gossip !== undefined) ctx.gossip.publish(signed.version, signed.message);
            else if (!notGossiped) log.info('Signed sequenced block; P2P is disabled, so it is not broadcast');
            notGossiped = true;
          }),
      },
      {
        logger,
        signal,
        onCritical: (err) => ctx.onFatal(`sequencer stopped: ${err.message}`),
        metrics: metrics && {
          recordSequencingError: () => metrics.sequencingErrors.record(),
          recordSequencerReset: () => metrics.sequencerResets.record(),
          recordBuildingDiff: (s) => metrics.sequencerBuildingDiff.observe(s),
          recordSealing: (s) => metrics.sequencerSealing.observe(s),
          recordPublishingError: () => metrics.publishingErrors.record(),
          setTransactionsSequenced: (n) => metrics.transactionsSequenced.set(n),
        },
      },
    );
    const seq = sequencer;
    lifecycle.onStop('sequencer', () => seq.close());
  } else if (options.sequencer.stopped || options.sequencer.recover) {
    log.warn('--sequencer.stopped/--sequencer.recover have no effect without --sequencer.enabled');
  }
  if (options.sequencerApi) {
    registerOpstackApi(ctx.registry, {
      config,
      controller: ctx.controller,
      exclusive: (fn) => ctx.driver.runExclusive(fn),
      publish: async (block) => {
        if (ctx.gossip === undefined) throw new TernError('P2P_DISABLED', 'P2P not enabled');
        ctx.gossip.publish(block.version, block.message);
      },
      recordRequest: metrics && ((m) => metrics.recordRpcServerRequest(m)),
    });
    log.info('Experimental OP stack API enabled on the RPC server');
  }

  if (options.adminApi) {
    const seq = sequencer;
    registerAdminApi(ctx.registry, {
      sequencer: seq,
      conductor,
      resetDerivationPipeline: () => {
        ctx.driver.requestReset();
        seq?.onReset();
      },
      postUnsafePayload: async (env) => {
        // op-node snapshots the heads as the payload arrives, before queueing it.
        ctx.snapshotLog?.snapshot(NEW_UNSAFE_PAYLOAD, {
          l1Head: ctx.l1Head(),
          ...(ctx.controller.initialized
            ? ctx.controller.heads
            : { unsafe: undefined, safe: undefined, finalized: undefined }),
        });
        await ctx.driver.runExclusive(() =>
          ctx.controller.insertUnsafePayload(env.executionPayload, env.parentBeaconBlockRoot),
        );
      },
      setLogLevel: (level) => {
        if (ctx.setLogLevel === undefined)
          throw new TernError('ADMIN_LOG_LEVEL', 'the log level cannot be changed at runtime');
        ctx.setLogLevel(level);
      },
      recordRequest: metrics && ((m) => metrics.recordRpcServerRequest(m)),
    });
    log.info('Admin API enabled on the RPC server');
  }

  return {
    sequencer,
    signer,
    conductor,
    start: async () => {
      await sequencer?.init();
    },
  };
}
