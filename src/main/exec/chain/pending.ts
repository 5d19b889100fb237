// --rollup.computependingblock: the `pending` block tag answered with a block computed from the transaction pool on
// top of the head (op-geth's eth/api_backend.go hands `pending` to the miner's pending block when the flag is set,
// and answers it as `latest` otherwise). The block is built by the same code the Engine API builds with
// (chain/builder.ts assembleBlock, through a builder of its own so that it never shares an executor with an engine
// build: on a call worker over an LMDB snapshot, ../rpc/pendingBuilder.ts, or a BlockBuilder here), without
// deposits, and is never persisted: it lives in memory until the head or the pool changes.
// Like geth's miner (which caches its pending block for a short TTL), a pool change rebuilds it at most every
// `minRebuildMs`; a new head always does.
import type { Logger } from '../../common/logger/index.js';
import type { Block } from '../../primitives/block/block.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import type { StateDiff } from '../state/interface.js';
import type { BuildAttributes } from './builder.js';
import type { ChainView, HeaderRef } from './chainView.js';
import { equalBytes } from './chainView.js';

/** A computed pending block: its header, body and receipts, and the state changes on top of its parent. */
export interface PendingBlock {
  readonly ref: HeaderRef;
  readonly block: Block;
  readonly receipts: readonly Receipt[];
  readonly parentHash: Uint8Array;
  readonly diff: StateDiff;
}

/**
 * What builds a pending block on a stored parent: a BlockBuilder on this thread, or the call workers
 * (../rpc/pendingBuilder.ts) so that the build does not stop the coordinator.
 */
export interface PendingBuilder {
  build(
    parentHash: Uint8Array,
    attrs: BuildAttributes,
  ): Promise<{ block: Block; hash: Uint8Array; receipts: readonly Receipt[]; diff: StateDiff }>;
}

/** What computes pending blocks (the backend asks it for requests that name `pending`). */
export interface PendingBlockSource {
  /** The pending block on top of the view's head; undefined when none can be built (then `pending` = `latest`). */
  get(view: ChainView): Promise<PendingBlock | undefined>;
}

export interface PendingPool {
  /** Called with each transaction that becomes pending; returns the unsubscribe function. */
  subscribe(listener: (hash: Uint8Array) => void): () => void;
}

export interface PendingBlocksOptions {
  /** A pool change rebuilds the pending block at most this often (a new head always rebuilds). */
  minRebuildMs: number;
  /** The clock (tests). */
  now?: () => number;
}

export const pendingBlocksDefaults: PendingBlocksOptions = { minRebuildMs: 1000 };

/** The attributes of a pending block: geth's pending work (now, or the parent's time + 1; no deposits). */
export function pendingAttributes(parent: HeaderRef, nowSeconds: bigint): BuildAttributes {
  const h = parent.header;
  const timestamp = nowSeconds > h.timestamp ? nowSeconds : h.timestamp + 1n;
  // Holocene on: keep the parent's EIP-1559 parameters (extraData = version ‖ denominator ‖ elasticity [‖ min fee]).
  const extra = h.extraData;
  const holoceneParent = (extra.length === 9 || extra.length === 17) && (extra[0] === 0 || extra[0] === 1);
  const eip1559Params = holoceneParent ? extra.slice(1, 9) : new Uint8Array(8);
  const minBaseFee = extra.length === 17 ? Buffer.from(extra.subarray(9, 17)).readBigUInt64BE(0) : 0n;
  return {
    timestamp,
    prevRandao: new Uint8Array(32),
    feeRecipient: new Uint8Array(20),
    withdrawals: [],
    parentBeaconBlockRoot: new Uint8Array(32),
    transactions: [],
    noTxPool: false,
    eip1559Params,
    minBaseFee,
  };
}

interface Cached {
  parentHash: Uint8Array;
  poolVersion: number;
  builtAt: number;
  block: Promise<PendingBlock | undefined>;
}

/** Builds pending blocks on demand, one at a time, cached per head and pool version. */
export class PendingBlocks implements PendingBlockSource {
  #cached: Cached | undefined;
  #poolVersion = 0;
  readonly #unsubscribe: () => void;
  readonly #now: () => number;

  constructor(
    private readonly builder: PendingBuilder,
    pool: PendingPool,
    private readonly opts: PendingBlocksOptions,
    private readonly logger?: Logger,
  ) {
    this.#unsubscribe = pool.subscribe(() => {
      this.#poolVersion++;
    });
    this.#now = opts.now ?? Date.now;
  }

  close(): void {
    this.#unsubscribe();
  }

  get(view: ChainView): Promise<PendingBlock | undefined> {
    const head = view.head();
    const c = this.#cached;
    const now = this.#now();
    if (
      c !== undefined &&
      equalBytes(c.parentHash, head.hash) &&
      (c.poolVersion === this.#poolVersion || now - c.builtAt < this.opts.minRebuildMs)
    )
      return c.block;
    const previous = c?.block ?? Promise.resolve(undefined);
    const poolVersion = this.#poolVersion;
    // One build at a time: the builder's executor is not reentrant.
    const block = previous.then(
      () => this.#build(head),
      () => this.#build(head),
    );
    this.#cached = { parentHash: head.hash, poolVersion, builtAt: now, block };
    return block;
  }

  async #build(head: HeaderRef): Promise<PendingBlock | undefined> {
    try {
      const built = await this.builder.build(
        head.hash,
        pendingAttributes(head, BigInt(Math.floor(this.#now() / 1000))),
      );
      return {
        ref: { header: built.block.header, hash: built.hash },
        block: built.block,
        receipts: built.receipts,
        parentHash: head.hash,
        diff: built.diff,
      };
    } catch (err) {
      this.logger?.debug('Could not compute the pending block; pending is the latest block', {
        err: (err as Error).message,
      });
      return undefined;
    }
  }
}
