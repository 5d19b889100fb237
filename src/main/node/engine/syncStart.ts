// Where derivation restarts (op-node's FindL2Heads, rollup/sync/start.go): from the engine's forkchoice, walk the
// L2 chain back from the unsafe head, one block at a time, checking each block's L1 origin against the canonical L1
// chain.
//  - unsafe: the highest block whose L1 origin is canonical, or ahead of what L1 shows yet (plausible);
//  - safe: the last block of the epoch before the first block, at or below the engine's safe head, whose L1 origin
//    is more than a sequencing window behind the highest canonical origin; never below finalized;
//  - finalized: the engine's (genesis when it has none).
// So a restart re-derives only what L1 may have changed. Errors: SYNC_WRONG_CHAIN and SYNC_REORG_FINALIZED and
// SYNC_TOO_DEEP (critical), anything from L1 or the engine as thrown (temporary: try again).
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { BlockId, L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import { type Engine, isNotFound } from './interface.js';

/** op-node's bound on how far a restart may rewind the unsafe head, in sequencing windows. */
export const MAX_REORG_SEQ_WINDOWS = 5;

export interface SyncStartL1 {
  blockRefByNumber(num: number): Promise<L1BlockRef>;
  blockRefByHash(hash: `0x${string}`): Promise<L1BlockRef>;
}

export type SyncStartL2 = Pick<Engine, 'l2BlockRefByLabel' | 'l2BlockRefByHash'>;

export interface SyncStartResult {
  unsafe: L2BlockRef;
  safe: L2BlockRef;
  finalized: L2BlockRef;
}

function critical(code: string, message: string): TernError {
  return new TernError(code, message, { severity: 'critical' });
}

const isL1NotFound = (err: unknown) => err instanceof TernError && err.code === 'L1_NOT_FOUND';
const sameId = (a: BlockId, b: BlockId) => a.hash === b.hash && a.number === b.number;
const show = (b: BlockId) => `${b.hash}:${b.number}`;

/** The engine's current heads; finalized defaults to genesis and safe to finalized, as op-node does. */
export async function currentHeads(cfg: RollupConfig, l2: SyncStartL2): Promise<SyncStartResult> {
  let finalized: L2BlockRef;
  try {
    finalized = await l2.l2BlockRefByLabel('finalized');
  } catch (err) {
    if (!isNotFound(err)) throw err;
    finalized = await l2.l2BlockRefByHash(cfg.genesis.l2.hash);
  }
  let safe: L2BlockRef;
  try {
    safe = await l2.l2BlockRefByLabel('safe');
  } catch (err) {
    if (!isNotFound(err)) throw err;
    safe = finalized;
  }
  const unsafe = await l2.l2BlockRefByLabel('latest');
  return { unsafe, safe, finalized };
}

export async function findL2Heads(
  cfg: RollupConfig,
  l1: SyncStartL1,
  l2: SyncStartL2,
  logger?: Logger,
): Promise<SyncStartResult> {
  const current = await currentHeads(cfg, l2);
  logger?.info('Loaded current L2 heads', {
    unsafe: show(current.unsafe),
    safe: show(current.safe),
    finalized: show(current.finalized),
  });
  const prevUnsafe = current.unsafe;
  let unsafe: L2BlockRef | undefined = current.unsafe;
  let highestCanonical: L2BlockRef | undefined;
  let l1Block: L1BlockRef | undefined;
  let ahead = false;
  let ready = false;
  let n = current.unsafe;

  for (;;) {
    if (l1Block !== undefined && n.l1origin.hash === l1Block.parentHash) {
      l1Block = await l1.blockRefByHash(n.l1origin.hash as `0x${string}`);
      ahead = false;
    } else if (l1Block === undefined || n.l1origin.hash !== l1Block.hash) {
      try {
        l1Block = await l1.blockRefByNumber(n.l1origin.number);
        ahead = false;
      } catch (err) {
        if (!isL1NotFound(err)) throw err;
        // L2 is ahead of our view of L1: plausible, not yet checkable.
        l1Block = undefined;
        ahead = true;
      }
    }

    if (n.number === cfg.genesis.l2.number) {
      if (n.hash !== cfg.genesis.l2.hash) {
        throw critical(
          'SYNC_WRONG_CHAIN',
          `wrong L2 chain: genesis is ${show(cfg.genesis.l2)}, the engine has ${show(n)}`,
        );
      }
      if (!ahead && l1Block !== undefined && l1Block.hash !== cfg.genesis.l1.hash) {
        throw critical(
          'SYNC_WRONG_CHAIN',
          `wrong L1 chain: genesis is ${show(cfg.genesis.l1)}, L1 has ${show(l1Block)}`,
        );
      }
    }
    if (n.number === current.finalized.number && n.hash !== current.finalized.hash) {
      throw critical(
        'SYNC_REORG_FINALIZED',
        `cannot reorg finalized block ${show(current.finalized)}: found ${show(n)}`,
      );
    }

    if (unsafe === undefined) {
      unsafe = n;
      if (n.l1origin.number + MAX_REORG_SEQ_WINDOWS * cfg.seqWindowSize < prevUnsafe.l1origin.number) {
        throw critical(
          'SYNC_TOO_DEEP',
          `reorg too deep: walked back to ${show(n)} from unsafe head ${show(prevUnsafe)}`,
        );
      }
    }

    if (ahead) {
      // keep the candidate: its origin cannot be checked yet
    } else if (l1Block !== undefined && l1Block.hash === n.l1origin.hash) {
      highestCanonical ??= n;
    } else {
      // The origin is neither ahead nor canonical: this block and everything after it are reorged out.
      unsafe = undefined;
      highestCanonical = undefined;
    }

    if (
      highestCanonical !== undefined &&
      n.number <= current.safe.number &&
      n.l1origin.number + cfg.seqWindowSize < highestCanonical.l1origin.number &&
      n.sequenceNumber === 0
    ) {
      ready = true;
    }

    if (n.number === current.finalized.number) {
      logger?.info('Sync start reached the finalized head', { unsafe: unsafe && show(unsafe), safe: show(n) });
      return { unsafe: unsafe ?? n, safe: n, finalized: current.finalized };
    }

    const parent = await l2.l2BlockRefByHash(n.parentHash);
    if (!sameId(parent.l1origin, n.l1origin)) {
      if (parent.l1origin.number + 1 !== n.l1origin.number) {
        throw critical(
          'SYNC_INCONSISTENT',
          `L2 block ${show(n)} has parent ${show(parent)} with L1 origin ${show(parent.l1origin)} not directly before ${show(n.l1origin)}`,
        );
      }
      if (n.sequenceNumber !== 0) {
        throw critical(
          'SYNC_INCONSISTENT',
          `L2 block ${show(n)} starts epoch ${n.l1origin.number} with sequence number ${n.sequenceNumber}`,
        );
      }
      if (l1Block !== undefined && l1Block.hash === n.l1origin.hash && l1Block.parentHash !== parent.l1origin.hash) {
        throw critical(
          'SYNC_INCONSISTENT',
          `L2 block ${show(parent)} has L1 origin ${show(parent.l1origin)}, L1 says ${l1Block.parentHash}`,
        );
      }
    } else if (parent.sequenceNumber + 1 !== n.sequenceNumber) {
      throw critical(
        'SYNC_INCONSISTENT',
        `sequence numbers ${parent.sequenceNumber} and ${n.sequenceNumber} of ${show(parent)} and ${show(n)} are not consecutive`,
      );
    }
    n = parent;
    if (ready) {
      logger?.info('Found sync start', {
        unsafe: unsafe && show(unsafe),
        safe: show(n),
        finalized: show(current.finalized),
      });
      return { unsafe: unsafe ?? n, safe: n, finalized: current.finalized };
    }
  }
}
