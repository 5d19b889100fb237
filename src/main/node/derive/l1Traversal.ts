// L1 traversal (derivation.md "L1 Traversal"): yields the current L1 block once, then advances to the next one by
// number, detecting L1 reorgs by parent hash and applying the block's SystemConfig updates, so L1 retrieval
// always authenticates batchers with the config of the exact block it reads.
//
// Managed mode (interop, op-node's L1TraversalManaged): the traversal never looks for the next L1 block itself; a
// supervisor hands it over (interop_provideL1) once derivation has exhausted the current one. A handed-over block
// that is not the next by number is dropped (the supervisor is told again that L1 is exhausted and sends the right
// one); one that does not build on the current block is an L1 reorg, a reset.
import type { Logger } from '../../common/logger/index.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { Hex as L1Hex } from '../l1/interface.js';
import { type StageDeps, stageLogger } from './frameQueue.js';
import { cloneSystemConfig, updateSystemConfigWithReceipts } from './systemConfig.js';
import { type L1BlockRef, resetError, type SystemConfig } from './types.js';

/** What L1 traversal reads (a subset of l1/interface.ts L1Source). */
export interface L1TraversalProvider {
  blockRefByNumber(num: number): Promise<L1BlockRef>;
  fetchReceipts(hash: L1Hex): Promise<{ receipts: Receipt[] }>;
}

export class L1Traversal {
  private block: L1BlockRef | undefined;
  private done = false;
  private sysCfg: SystemConfig | undefined;
  private readonly log: Logger;
  /** Managed mode: the next L1 block the supervisor handed over, not yet taken. */
  private provided: L1BlockRef | undefined;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly l1: L1TraversalProvider,
    deps: StageDeps = {},
    /** Managed mode: the next L1 block comes only from provideNextL1. */
    readonly managed = false,
  ) {
    this.log = stageLogger(deps, 'l1-traversal');
  }

  /** Managed mode: the supervisor's next L1 block, taken at the next advanceOrigin. */
  provideNextL1(next: L1BlockRef): void {
    if (!this.managed) throw new Error('provideNextL1 needs a managed L1 traversal');
    this.provided = next;
  }

  origin(): L1BlockRef | undefined {
    return this.block;
  }

  /** The system config as of the current origin (batcher authentication). */
  systemConfig(): SystemConfig {
    if (this.sysCfg === undefined) throw resetError('DERIVE_NOT_RESET', 'L1 traversal used before reset');
    return this.sysCfg;
  }

  /** The current L1 block, once; undefined until the origin advances. */
  nextL1Block(): L1BlockRef | undefined {
    if (this.done || this.block === undefined) return undefined;
    this.done = true;
    return this.block;
  }

  /**
   * Moves to the next L1 block. Resolves false when L1 has no next block yet; throws a reset error on an L1 reorg
   * (the next block does not build on the current one), and lets temporary L1 errors through.
   */
  async advanceOrigin(): Promise<boolean> {
    const cur = this.block;
    if (cur === undefined) throw resetError('DERIVE_NOT_RESET', 'L1 traversal used before reset');
    let next: L1BlockRef;
    if (this.managed) {
      const provided = this.provided;
      if (provided === undefined) return false;
      if (provided.number !== cur.number + 1) {
        this.provided = undefined;
        this.log.warn('Received signal for L1 block, but needed different block', {
          current: cur.number,
          next: provided.number,
        });
        return false;
      }
      next = provided;
    } else {
      try {
        next = await this.l1.blockRefByNumber(cur.number + 1);
      } catch (err) {
        if ((err as { code?: unknown }).code === 'L1_NOT_FOUND') {
          this.log.debug('next L1 block not available yet', { number: cur.number + 1 });
          return false;
        }
        throw err;
      }
    }
    if (next.parentHash !== cur.hash) {
      this.provided = undefined;
      throw resetError(
        'L1_REORG',
        `detected L1 reorg: block ${next.number} (${next.hash}) has parent ${next.parentHash}, not ${cur.hash}`,
      );
    }
    const { receipts } = await this.l1.fetchReceipts(next.hash as L1Hex);
    const sc = cloneSystemConfig(this.systemConfig());
    if (updateSystemConfigWithReceipts(sc, receipts, this.cfg, next.timestamp)) {
      this.log.info('system config updated', { l1: next.number, batcher: sc.batcherAddr });
    }
    this.sysCfg = sc;
    this.block = next;
    this.done = false;
    this.provided = undefined;
    return true;
  }

  /** Starts over at `base` with the system config that applies there. */
  reset(base: L1BlockRef, sysCfg: SystemConfig): void {
    this.provided = undefined;
    this.block = base;
    this.done = false;
    this.sysCfg = cloneSystemConfig(sysCfg);
  }
}
