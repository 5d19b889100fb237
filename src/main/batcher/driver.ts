// The batch submitter's loop (op-batcher's driver): every poll interval, read the sequencer's sync status, load the
// L2 blocks from the last one queued (or the safe head) up to the unsafe head, and hand ready transaction data to
// the transaction manager, at most --max-pending-tx at a time. A block that does not build on the last one queued
// (an L2 reorg), a safe head past everything queued, or a safe head that moved backwards (the rollup node reset,
// e.g. after an L1 reorg), starts the queue over from the safe head. Every poll also checks that the newest L1
// blocks holding our confirmed transactions are still canonical; a channel whose transaction was reorged out of L1,
// after it had its confirmations, is rebuilt from its L2 blocks with every later channel, and sent again.
import { TernError } from '../common/errors.js';
import type { Logger } from '../common/logger/index.js';
import {
  channelTimeout,
  isDelta,
  isEcotone,
  isFjord,
  maxRlpBytesPerChannel,
  type RollupConfig,
} from '../primitives/rollup/config.js';
import { MAX_BLOB_DATA_SIZE } from '../protocol/blob/blobData.js';
import type { DaPublisher } from './altda/daPublisher.js';
import type { ChannelConfig } from './channelBuilder.js';
import { ChannelManager, type L1BlockId, type L1Head, type TxData } from './channelManager.js';
import { batcherPayload, blobSidecar, intrinsicGas } from './l1Tx.js';
import { l2BlockFromRpc } from './l2Block.js';
import { type ChannelOptions, compressionOf, MAX_BLOBS_PER_TX } from './options.js';
import type { L1Rpc, TxCandidate, TxManager } from './txmgr.js';

export interface DriverOptions extends ChannelOptions {
  pollIntervalMs: number;
  maxPendingTx: number;
  stopped: boolean;
  /** Blob sidecars with cell proofs (EIP-7594). */
  cellProofs: boolean;
}

export interface DriverDeps {
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly l1: L1Rpc;
  readonly l2: L1Rpc;
  readonly rollup: L1Rpc;
  readonly txmgr: TxManager;
  /** Alt-DA mode: payloads go to the DA server, commitments to L1. */
  readonly altDa?: DaPublisher | undefined;
}

interface RefJson {
  hash: string;
  number: number;
  l1origin?: { hash: string; number: number };
}

/** Most inclusion blocks looked up in one poll (newest first; a canonical one ends the walk). */
const MAX_INCLUSION_CHECKS = 8;

const BLOB_GAS_PER_BLOB = 131_072n;
const q = (v: unknown): bigint => (typeof v === 'string' || typeof v === 'number' ? BigInt(v) : 0n);

export class BatchSubmitter {
  readonly channels: ChannelManager;
  private running: boolean;
  private inFlight = 0;
  private autoBlobs = false;
  private readonly sends = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly logger: Logger;
  private readonly warned = new Set<string>();
  private lastSafe: RefJson | undefined;

  constructor(
    private readonly opts: DriverOptions,
    private readonly rollup: RollupConfig,
    private readonly deps: DriverDeps,
  ) {
    this.logger = deps.logger;
    this.running = !opts.stopped;
    this.channels = new ChannelManager((head) => this.channelConfig(head), { logger: deps.logger.child('channels') });
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** admin_startBatcher */
  startBatcher(): void {
    if (this.running) throw new TernError('BATCHER_RUNNING', 'batcher is already running');
    this.running = true;
    this.wake?.();
  }

  /** admin_stopBatcher: stops taking new data; transactions in flight continue. */
  stopBatcher(): void {
    if (!this.running) throw new TernError('BATCHER_STOPPED', 'batcher is not running');
    this.running = false;
  }

  private warnOnce(key: string, msg: string, ctx: Record<string, unknown>): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(msg, ctx);
  }

  /** The settings of a channel opened now: fork rules decide the batch type and compression. */
  channelConfig(head: L1Head): ChannelConfig {
    const o = this.opts;
    const cfg = this.rollup;
    let { algo, level } = compressionOf(o.compressionAlgo);
    if (algo === 'brotli' && !isFjord(cfg, head.timestamp)) {
      this.warnOnce('brotli', 'Brotli needs Fjord active on L1; using zlib until then', { l1Time: head.timestamp });
      algo = 'zlib';
      level = 9;
    }
    const spanBatches = o.batchType === 1 && isDelta(cfg, head.timestamp);
    if (o.batchType === 1 && !spanBatches) {
      this.warnOnce('span', 'Span batches need Delta; sending singular batches until then', { l1Time: head.timestamp });
    }
    let useBlobs = o.dataAvailabilityType === 'blobs' || (o.dataAvailabilityType === 'auto' && this.autoBlobs);
    if (useBlobs && !isEcotone(cfg, head.timestamp)) {
      this.warnOnce('blobs', 'Blobs are read by derivation from Ecotone; using calldata until then', {});
      useBlobs = false;
    }
    return {
      compression: algo,
      level,
      spanBatches,
      genesisTime: cfg.genesis.l2Time,
      chainId: cfg.l2ChainId,
      maxFrameSize: useBlobs ? MAX_BLOB_DATA_SIZE - 1 : o.maxL1TxSizeBytes - 1,
      targetNumFrames: useBlobs ? Math.min(o.targetNumFrames, MAX_BLOBS_PER_TX) : o.targetNumFrames,
      compressor: o.compressor,
      approxComprRatio: o.approxComprRatio,
      maxRlpBytes: maxRlpBytesPerChannel(cfg, head.timestamp),
      useBlobs,
      channelTimeout: channelTimeout(cfg, head.timestamp),
      seqWindowSize: cfg.seqWindowSize,
      subSafetyMargin: o.subSafetyMargin,
      maxChannelDuration: o.maxChannelDuration,
    };
  }

  /** Starts the loop. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Ends the loop; transactions in flight are abandoned through the shared abort signal. */
  async stop(): Promise<void> {
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.sends]);
  }

  private async run(): Promise<void> {
    const { signal } = this.deps;
    while (!signal.aborted) {
      if (this.running) {
        try {
          await this.tick();
        } catch (err) {
          if (signal.aborted) break;
          this.logger.warn('Batcher iteration failed, retrying', {
            err: err instanceof Error ? err.message : String(err),
          });
        }
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, this.opts.pollIntervalMs);
        const onAbort = () => done();
        function done() {
          clearTimeout(t);
          signal.removeEventListener('abort', onAbort);
          resolve();
        }
        this.wake = done;
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** One iteration: load new blocks, then publish what is ready. */
  async tick(): Promise<void> {
    const status = await this.deps.rollup.call<Record<string, RefJson>>('optimism_syncStatus');
    const safe = status.safe_l2;
    const unsafe = status.unsafe_l2;
    if (!safe || !unsafe) throw new TernError('SYNC_STATUS', 'sync status without safe_l2/unsafe_l2');
    this.checkSafeHead(safe);
    await this.loadBlocks(safe, unsafe);
    const headJson = await this.deps.l1.call<Record<string, unknown>>('eth_getBlockByNumber', ['latest', false]);
    const head: L1Head = { number: Number(q(headJson.number)), timestamp: Number(q(headJson.timestamp)) };
    this.channels.prune(safe.number, safe.l1origin?.number, head.number);
    await this.checkInclusions();
    if (this.opts.dataAvailabilityType === 'auto') this.autoBlobs = await this.blobsCheaper(headJson);
    this.publish(head);
  }

  /** A safe head that moved backwards (or changed at its height): the node reset; start over from its safe head. */
  private checkSafeHead(safe: RefJson): void {
    const prev = this.lastSafe;
    this.lastSafe = safe;
    if (prev === undefined) return;
    const back = safe.number < prev.number;
    const replaced = safe.number === prev.number && safe.hash.toLowerCase() !== prev.hash.toLowerCase();
    if (!back && !replaced) return;
    this.logger.warn('Safe head moved backwards, starting over from it', {
      safe: safe.number,
      previous: prev.number,
      hash: safe.hash,
    });
    this.channels.clear();
    this.deps.txmgr.resetNonce();
  }

  /**
   * Checks that the newest L1 blocks holding our confirmed transactions are still canonical. If the newest is, the
   * older ones are too; otherwise walk back until one is (at most MAX_INCLUSION_CHECKS a poll), and rebuild the
   * first channel with a transaction in a block that is gone, and every later one.
   */
  private async checkInclusions(): Promise<void> {
    const gone: L1BlockId[] = [];
    for (const b of this.channels.inclusionBlocks().slice(0, MAX_INCLUSION_CHECKS)) {
      const cur = await this.deps.l1.call<{ hash?: string } | null>('eth_getBlockByNumber', [
        `0x${b.number.toString(16)}`,
        false,
      ]);
      if (cur?.hash !== undefined && cur.hash.toLowerCase() === b.hash) break;
      gone.push(b);
    }
    if (gone.length === 0) return;
    this.logger.warn('L1 blocks holding batcher transactions were reorged out', {
      blocks: gone.map((b) => `${b.number}:${b.hash}`),
    });
    if (this.channels.l1Reorged(gone)) this.deps.txmgr.resetNonce();
  }

  private async loadBlocks(safe: RefJson, unsafe: RefJson): Promise<void> {
    const cm = this.channels;
    const tip = cm.tip;
    if (tip !== undefined && safe.number > tip.number) {
      this.logger.info('Safe head is past the blocks queued, starting over from it', {
        safe: safe.number,
        queued: tip.number,
      });
      cm.clear();
    }
    const from = (cm.tip?.number ?? safe.number) + 1;
    for (let n = from; n <= unsafe.number; n++) {
      const raw = await this.deps.l2.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      const block = l2BlockFromRpc(raw);
      if (cm.tip === undefined && block.parentHash !== safe.hash.toLowerCase()) {
        this.logger.warn('Block after the safe head does not build on it; waiting for the node', {
          block: n,
          parent: block.parentHash,
          safe: safe.hash,
        });
        return;
      }
      try {
        cm.addL2Block(block);
      } catch (err) {
        if (!(err instanceof TernError && err.code === 'L2_REORG')) throw err;
        this.logger.warn('L2 reorg detected, clearing channel state', { err: err.message });
        cm.clear();
        return;
      }
    }
  }

  /** --data-availability-type=auto: blobs when a byte in a full blob costs less than a byte of calldata. */
  private async blobsCheaper(head: Record<string, unknown>): Promise<boolean> {
    const blobBaseFee = await this.deps.l1
      .call<string>('eth_blobBaseFee')
      .then(q)
      .catch(() => undefined);
    if (blobBaseFee === undefined) return false;
    const baseFee = q(head.baseFeePerGas);
    const perTxBytes = BigInt(MAX_BLOB_DATA_SIZE * Math.min(this.opts.targetNumFrames, MAX_BLOBS_PER_TX));
    // Costs of one blob transaction's worth of data, both ways (calldata at 16 gas a byte, the floor ignored).
    const blobCost = blobBaseFee * BLOB_GAS_PER_BLOB * (perTxBytes / BigInt(MAX_BLOB_DATA_SIZE)) + baseFee * 21_000n;
    const calldataCost = baseFee * 16n * perTxBytes;
    return blobCost < calldataCost;
  }

  private publish(head: L1Head): void {
    while (this.opts.maxPendingTx === 0 || this.inFlight < this.opts.maxPendingTx) {
      const tx = this.channels.nextTxData(head);
      if (tx === undefined) return;
      this.inFlight++;
      const p = this.send(tx).finally(() => {
        this.inFlight--;
        this.sends.delete(p);
        this.wake?.();
      });
      this.sends.add(p);
    }
  }

  /** The candidate transaction for a TxData (exported through the class for tests). */
  candidate(tx: TxData): TxCandidate {
    const payload = batcherPayload(tx);
    const to = this.rollup.batchInboxAddress;
    if (!tx.useBlobs) return { to, data: payload.calldata, gasLimit: intrinsicGas(payload.calldata) };
    return { to, data: payload.calldata, gasLimit: 21_000n, sidecar: blobSidecar(payload.blobs, this.opts.cellProofs) };
  }

  private async send(tx: TxData): Promise<void> {
    try {
      let candidate = this.candidate(tx);
      if (this.deps.altDa !== undefined) {
        const data = await this.deps.altDa.publish(candidate.data);
        candidate = { to: candidate.to, data, gasLimit: intrinsicGas(data) };
      }
      const receipt = await this.deps.txmgr.send(candidate);
      if (receipt.success) this.channels.txConfirmed(tx.id, receipt.blockNumber, receipt.blockHash);
      else this.channels.txFailed(tx.id);
    } catch (err) {
      if (this.deps.signal.aborted) return;
      this.logger.warn('Batcher transaction given up', {
        tx: tx.id,
        err: err instanceof Error ? err.message : String(err),
      });
      this.channels.txFailed(tx.id);
    }
  }
}
