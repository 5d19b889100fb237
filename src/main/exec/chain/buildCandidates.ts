// The tx pool's candidates for a block built on the executor thread (../executor/worker.ts): the coordinator, which
// owns the pool, takes them in the order the builder would (TxPool.pendingForBlock: by tip across senders, by nonce
// within one) as plain data — raw bytes and the senders the pool already recovered — and the thread replays them to the
// builder as a source of its own (BuildTxSource), where skipping a sender drops the rest of its transactions.
//
// Skipping one sender does not reorder the others in the pool's merge, so the replay yields what the pool would have
// yielded, as long as the snapshot is long enough: the builder packs by gas limit into what the forced transactions
// leave, so the snapshot holds up to CANDIDATE_GAS_FACTOR blocks' worth, which leaves room for senders the thread skips
// (a transaction that does not fit what is left, or fails). Transactions no block can take (deposits, blob transactions
// on OP chains) are skipped here, as the builder would. One difference remains: the pool's conditional transactions
// (eth_sendRawTransactionConditional) are checked as the snapshot is taken, so one the block would not have reached
// can be refused for a failed condition a block sooner than with the builder on the coordinator.

import type { Header } from '../../primitives/block/header.js';
import { type ChainConfig, isOptimism } from '../../primitives/chainConfig.js';
import type { BlockTxFilter } from '../txpool/interface.js';
import {
  type BuildAttributes,
  type BuildTx,
  type BuildTxSource,
  blockTemplate,
  poolFilterFor,
  unfitForBlock,
} from './builder.js';

/** A pool transaction handed to the executor thread. */
export interface BuildCandidate {
  readonly raw: Uint8Array;
  readonly sender: Uint8Array;
  readonly type: number;
  readonly gasLimit: bigint;
  /** A blob transaction's versioned hashes (the builder refuses one without). */
  readonly blobVersionedHashes: readonly string[] | undefined;
}

/** Blocks' worth of gas limits the snapshot holds (see the header). */
export const CANDIDATE_GAS_FACTOR = 2n;

/** The pool's candidates for a block with this filter, in inclusion order, up to CANDIDATE_GAS_FACTOR blocks' worth. */
export function takeCandidates(pool: BuildTxSource, filter: BlockTxFilter, optimism: boolean): BuildCandidate[] {
  const out: BuildCandidate[] = [];
  const bound = filter.gasLimit * CANDIDATE_GAS_FACTOR;
  let gas = 0n;
  const it = pool.pendingForBlock(filter);
  for (const { tx, sender } of it) {
    if (gas >= bound) break;
    if (unfitForBlock(tx, optimism, filter)) {
      it.skipSender(sender);
      continue;
    }
    out.push({
      raw: tx.raw,
      sender,
      type: tx.type,
      gasLimit: tx.gasLimit,
      blobVersionedHashes: tx.blobVersionedHashes,
    });
    gas += tx.gasLimit;
  }
  return out;
}

/** The snapshot as the builder's pool: pendingForBlock replays it, honouring skipSender and the filter's gas. */
export function candidateSource(candidates: readonly BuildCandidate[]): BuildTxSource {
  return {
    pendingForBlock(filter: BlockTxFilter) {
      const skipped = new Set<string>();
      const key = (sender: Uint8Array) => Buffer.from(sender).toString('hex');
      return {
        skipSender(sender: Uint8Array): void {
          skipped.add(key(sender));
        },
        *[Symbol.iterator](): Iterator<BuildTx> {
          for (const c of candidates) {
            const k = key(c.sender);
            if (skipped.has(k)) continue;
            // The pool drops a sender whose next transaction exceeds the gas left (TxPool.pendingForBlock).
            if (c.gasLimit > filter.gasLimit) {
              skipped.add(k);
              continue;
            }
            yield { tx: c, sender: c.sender };
          }
        },
      };
    },
  };
}

/**
 * The candidates for a block on `parent` (header and hash) with these attributes; none when the block takes none
 * (noTxPool, no pool), or when the parent and attributes give no header (the build then answers with the error).
 */
export function candidatesFor(
  config: ChainConfig,
  pool: BuildTxSource | undefined,
  parent: { header: Header; hash: Uint8Array } | undefined,
  attrs: BuildAttributes,
): BuildCandidate[] {
  if (pool === undefined || attrs.noTxPool || parent === undefined) return [];
  let filter: ReturnType<typeof poolFilterFor>;
  try {
    filter = poolFilterFor(config, blockTemplate(config, parent.header, parent.hash, attrs));
  } catch {
    return [];
  }
  return filter === undefined ? [] : takeCandidates(pool, filter, isOptimism(config));
}
