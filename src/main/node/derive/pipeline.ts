// The derivation pipeline: wires the stages from L1 traversal to the attributes queue, lists the reset order
// (derivation.md "Resetting derivation stages"), finds the L1 block to restart from after a reset (a channel
// timeout before the safe head's origin, op-node's initialReset), and swaps in the Holocene channel assembler and
// batch stage when the L1 origin crosses the Holocene activation time.
//
// The driver's loop: reset(safeHead) once (and after every reset-severity error), then step(safeHead) repeatedly:
//   { kind: 'attributes' }  attributes for the block after the safe head: process them, then step again;
//   { kind: 'progress' }    the L1 origin advanced: step again;
//   { kind: 'eof' }         L1 has no next block yet: wait for a new L1 head, then step again.
// Errors are TernErrors: severity 'temporary' (retry the step later), 'reset' (L1 reorg or inconsistent state:
// reset, then continue), 'critical' (stop derivation).
import type { Logger } from '../../common/logger/index.js';
import { channelTimeout, isHolocene, type RollupConfig } from '../../primitives/rollup/config.js';
import type { L1ChainConfig } from '../../primitives/rollup/l1ChainConfig.js';
import type { Hex as L1Hex } from '../l1/interface.js';
import type { AltDaInputs } from './altda/altDaInputs.js';
import {
  AttributesBuilder,
  type AttributesBuilderOptions,
  type AttributesL1Provider,
  type SystemConfigProvider,
} from './attributesBuilder.js';
import { AttributesQueue } from './attributesQueue.js';
import type { BatchSource } from './batchQueue.js';
import { BatchMux } from './batchStage.js';
import type { SafeBlockFetcher } from './batchValidator.js';
import { ChannelAssembler } from './channelAssembler.js';
import { ChannelBank, type ChannelDataSource } from './channelBank.js';
import { ChannelReader, type ChannelReaderDeps } from './channelReader.js';
import type { BlobProvider, DataSourceProvider } from './dataSource.js';
import { FrameQueue, type FrameSource, stageLogger } from './frameQueue.js';
import { L1Retrieval } from './l1Retrieval.js';
import { L1Traversal, type L1TraversalProvider } from './l1Traversal.js';
import {
  type AttributesWithParent,
  type BlockId,
  type DropCounter,
  type L1BlockRef,
  type L2BlockRef,
  noopDropCounter,
  resetError,
  type SystemConfig,
  temporaryError,
} from './types.js';
import type { BytecodeSource } from './upgrades/common.js';

/** Every L1 read of the pipeline: l1/interface.ts L1Source satisfies it. */
export interface PipelineL1
  extends Omit<L1TraversalProvider, 'fetchReceipts'>,
    DataSourceProvider,
    AttributesL1Provider {
  blockRefByHash(hash: L1Hex): Promise<L1BlockRef>;
}

/** Every L2 read of the pipeline, served by the engine (L2 blocks and the system config they carry). */
export interface PipelineL2 extends SafeBlockFetcher, SystemConfigProvider {
  l2BlockRefByHash(hash: string): Promise<L2BlockRef>;
}

export interface PipelineProviders {
  l1: PipelineL1;
  /** Needed from Ecotone when the batcher posts blobs. */
  blobs?: BlobProvider | undefined;
  l2: PipelineL2;
}

export interface PipelineOptions {
  l1ChainConfig?: L1ChainConfig | undefined;
  bytecode?: BytecodeSource | undefined;
  /** Alt-DA mode: commitments in batcher data are resolved through the DA server. */
  altDa?: AltDaInputs | undefined;
  /** Interop managed mode: L1 blocks come from the supervisor (traversal.provideNextL1), not from L1 itself. */
  managedL1?: boolean | undefined;
  /** The interop dependency set: whether the interop activation block initializes the CrossL2Inbox. */
  dependencySet?: AttributesBuilderOptions['dependencySet'];
}

export interface PipelineDeps {
  logger?: Logger;
  drops?: DropCounter;
  decompress?: ChannelReaderDeps['decompress'];
}

export type StepResult =
  | { kind: 'attributes'; attributes: AttributesWithParent }
  | { kind: 'progress' }
  | { kind: 'eof' };

/** The channel bank before Holocene, the channel assembler after (op-node's ChannelMux). */
class ChannelMux implements ChannelDataSource {
  private readonly bank: ChannelBank;
  private readonly assembler: ChannelAssembler;
  private active: ChannelBank | ChannelAssembler;

  constructor(
    private readonly cfg: RollupConfig,
    prev: FrameSource,
    deps: { logger?: Logger },
  ) {
    this.bank = new ChannelBank(cfg, prev, deps);
    this.assembler = new ChannelAssembler(cfg, prev, deps);
    this.active = this.bank;
  }

  origin(): L1BlockRef | undefined {
    return this.active.origin();
  }

  nextData(): Promise<Uint8Array | undefined> {
    return this.active.nextData();
  }

  reset(base: L1BlockRef): void {
    this.active = isHolocene(this.cfg, base.timestamp) ? this.assembler : this.bank;
    this.active.reset();
  }

  /** Holocene activation: a fresh assembler; the bank's channels are discarded. */
  activateHolocene(): void {
    if (this.active === this.assembler) return;
    this.bank.reset();
    this.assembler.reset();
    this.active = this.assembler;
  }
}

export class DerivationPipeline {
  readonly traversal: L1Traversal;
  readonly retrieval: L1Retrieval;
  readonly frameQueue: FrameQueue;
  readonly channels: ChannelMux;
  readonly channelReader: ChannelReader;
  readonly batches: BatchMux;
  readonly attributes: AttributesQueue;
  private readonly log: Logger;
  private lastOrigin: L1BlockRef | undefined;
  private isReset = false;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly providers: PipelineProviders,
    opts: PipelineOptions = {},
    deps: PipelineDeps = {},
  ) {
    const stageDeps = deps.logger === undefined ? {} : { logger: deps.logger.child('derive') };
    this.log = stageLogger(stageDeps, 'pipeline');
    this.traversal = new L1Traversal(cfg, providers.l1, stageDeps, opts.managedL1 ?? false);
    this.retrieval = new L1Retrieval(cfg, this.traversal, providers.l1, providers.blobs, stageDeps, opts.altDa);
    this.frameQueue = new FrameQueue(cfg, this.retrieval, stageDeps);
    this.channels = new ChannelMux(cfg, this.frameQueue, stageDeps);
    this.channelReader = new ChannelReader(cfg, this.channels, {
      ...stageDeps,
      ...(deps.decompress === undefined ? {} : { decompress: deps.decompress }),
    });
    const batchSource: BatchSource = this.channelReader;
    this.batches = new BatchMux(cfg, batchSource, providers.l2, { ...stageDeps, drops: deps.drops ?? noopDropCounter });
    const builder = new AttributesBuilder(cfg, providers.l1, providers.l2, {
      l1ChainConfig: opts.l1ChainConfig,
      bytecode: opts.bytecode,
      dependencySet: opts.dependencySet,
    });
    this.attributes = new AttributesQueue(cfg, builder, this.batches, stageDeps);
  }

  /** The L1 block derivation has read up to. */
  origin(): L1BlockRef | undefined {
    return this.attributes.origin();
  }

  /**
   * Restarts derivation for the safe head: walks the L2 chain back until its L1 origin is a channel timeout older
   * (so channels that may hold the next batches are read again), then resets every stage, outermost first.
   */
  async reset(safeHead: L2BlockRef): Promise<void> {
    this.isReset = false;
    const { l1, l2 } = this.providers;
    const target = safeHead.l1origin;
    let pipelineL2 = safeHead;
    let origin = await l1.blockRefByHash(pipelineL2.l1origin.hash as L1Hex);
    for (;;) {
      const afterL2Genesis = pipelineL2.number > this.cfg.genesis.l2.number;
      const afterL1Genesis = pipelineL2.l1origin.number > this.cfg.genesis.l1.number;
      const withinTimeout = pipelineL2.l1origin.number + channelTimeout(this.cfg, origin.timestamp) > target.number;
      if (!(afterL2Genesis && afterL1Genesis && withinTimeout)) break;
      try {
        pipelineL2 = await l2.l2BlockRefByHash(pipelineL2.parentHash);
      } catch (err) {
        throw resetError('DERIVE_RESET_L2', `L2 block ${pipelineL2.parentHash} unavailable during reset`, err);
      }
      origin = await l1.blockRefByHash(pipelineL2.l1origin.hash as L1Hex);
    }
    let sysCfg: SystemConfig;
    try {
      sysCfg = await l2.systemConfigByL2Hash(pipelineL2.hash);
    } catch (err) {
      throw temporaryError('DERIVE_RESET_SYSCFG', `system config of L2 block ${pipelineL2.number} unavailable`, err);
    }
    this.resetStages(origin, sysCfg);
    this.log.info('derivation reset', { origin: origin.number, safe: safeHead.number, from: pipelineL2.number });
  }

  /** The reset order: every stage from L1 traversal inwards, each starting at `base`. */
  resetStages(base: L1BlockRef, sysCfg: SystemConfig): void {
    this.traversal.reset(base, sysCfg);
    this.retrieval.reset(base);
    this.frameQueue.reset();
    this.channels.reset(base);
    this.channelReader.reset();
    this.batches.reset(base);
    this.attributes.reset();
    this.lastOrigin = base;
    this.isReset = true;
  }

  /** One derivation step on top of `safeHead` (see the file comment for the results). */
  async step(safeHead: L2BlockRef): Promise<StepResult> {
    if (!this.isReset) throw resetError('DERIVE_NOT_RESET', 'derivation pipeline must be reset before stepping');
    this.transformStages();
    const attributes = await this.attributes.nextAttributes(safeHead);
    if (attributes !== undefined) return { kind: 'attributes', attributes };
    const advanced = await this.traversal.advanceOrigin();
    if (!advanced) return { kind: 'eof' };
    this.transformStages();
    return { kind: 'progress' };
  }

  /** Holocene activates by L1 origin time: the stages that change are replaced as the origin crosses it. */
  private transformStages(): void {
    const prev = this.lastOrigin;
    const next = this.origin();
    if (next === undefined || prev === undefined || prev.hash === next.hash) return;
    this.lastOrigin = next;
    if (!isHolocene(this.cfg, prev.timestamp) && isHolocene(this.cfg, next.timestamp)) {
      this.log.info('Holocene activated in derivation', { origin: next.number });
      this.frameQueue.reset();
      this.channels.activateHolocene();
      this.batches.activateHolocene();
    }
  }

  /** Holocene: the engine rejected the last attributes; returns their deposit-only replacement. */
  depositsOnlyAttributes(parent: BlockId): AttributesWithParent {
    return this.attributes.depositsOnlyAttributes(parent);
  }
}
