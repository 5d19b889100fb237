// Batch validity (derivation.md "Batch Queue", delta/span-batches.md "Span batch validation", holocene/derivation.md
// "Span Batches" and "Batch Queue", isthmus/derivation.md "Activation", jovian/derivation.md "Activation Block
// Rules", interop/derivation.md "Activation Block"). Pure functions over the buffered L1 origins and the safe head; the only I/O is the L2 lookups a span
// batch overlapping the safe chain needs. Holocene rules apply by the batch's L1 inclusion block time.

import { equalBytes } from '../../primitives/bytes.js';
import type { L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';
import {
  isDelta,
  isHolocene,
  isInteropActivationBlock,
  isIsthmus,
  isJovianActivationBlock,
  maxSequencerDrift,
  type RollupConfig,
} from '../../primitives/rollup/config.js';
import type { SingularBatch } from '../../protocol/batch/singularBatch.js';
import { toHex } from './types.js';

export type BatchValidity = 'drop' | 'accept' | 'undecided' | 'future' | 'past';

export interface Verdict {
  validity: BatchValidity;
  /** Why a batch was dropped or left undecided (log and metrics label). */
  reason?: string;
}

/** One block of a span batch, with its absolute timestamp and L1 origin number already resolved. */
export interface SpanBatchElement {
  readonly timestamp: number;
  readonly epochNum: number;
  readonly transactions: readonly Uint8Array[];
}

/** The span batch fields validation reads (batch/ decodes and derives them). */
export interface SpanBatchView {
  /** First 20 bytes of the parent hash of the first block. */
  readonly parentCheck: Uint8Array;
  /** First 20 bytes of the L1 origin hash of the last block. */
  readonly l1OriginCheck: Uint8Array;
  readonly batches: readonly SpanBatchElement[];
}

export type Batch = { type: 'singular'; batch: SingularBatch } | { type: 'span'; batch: SpanBatchView };

/** The L2 reads span-batch validation needs for batches that overlap the safe chain. */
export interface SafeBlockFetcher {
  l2BlockRefByNumber(num: number): Promise<L2BlockRef>;
  /** The block's reference and its transactions in EIP-2718 form (deposits included). */
  l2BlockByNumber(num: number): Promise<{ ref: L2BlockRef; transactions: readonly Uint8Array[] }>;
}

const ACCEPT: Verdict = { validity: 'accept' };
const drop = (reason: string): Verdict => ({ validity: 'drop', reason });
const undecided = (reason: string): Verdict => ({ validity: 'undecided', reason });

const DEPOSIT_TX_TYPE = 0x7e;
const SET_CODE_TX_TYPE = 0x04;

/** The per-transaction rules every batch's transactions obey. */
function checkTransactions(cfg: RollupConfig, timestamp: number, txs: readonly Uint8Array[]): Verdict {
  for (const [i, tx] of txs.entries()) {
    if (tx.length === 0) return drop(`transaction ${i} is empty`);
    if (tx[0] === DEPOSIT_TX_TYPE) return drop(`transaction ${i} is a deposit`);
    if (tx[0] === SET_CODE_TX_TYPE && !isIsthmus(cfg, timestamp))
      return drop(`transaction ${i} is 7702 before Isthmus`);
  }
  return ACCEPT;
}

function startsWith(hash: string, check: Uint8Array): boolean {
  return hash.toLowerCase().slice(2, 42) === toHex(check).slice(2);
}

/** The timestamp rules, where Holocene (by inclusion time) turns `future` into drop and old batches into `past`. */
function checkTimestamp(cfg: RollupConfig, ts: number, parent: L2BlockRef, inclusion: L1BlockRef): Verdict {
  const next = parent.timestamp + cfg.blockTime;
  const holocene = isHolocene(cfg, inclusion.timestamp);
  if (ts > next) return holocene ? drop('future batch (Holocene forbids gaps)') : { validity: 'future' };
  if (ts < next) return holocene ? { validity: 'past' } : drop('batch is older than the next block');
  return ACCEPT;
}

/** Singular batch validity, in the spec's rule order. `l1Blocks[0]` is the safe head's epoch. */
export function checkSingularBatch(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  parent: L2BlockRef,
  batch: SingularBatch,
  inclusion: L1BlockRef,
): Verdict {
  const epoch = l1Blocks[0];
  if (epoch === undefined) return undecided('no L1 origin buffered');
  const ts = checkTimestamp(cfg, batch.timestamp, parent, inclusion);
  if (ts.validity !== 'accept') return ts;
  if (toHex(batch.parentHash) !== parent.hash) return drop('parent hash does not match the safe head');
  if (batch.epochNum + cfg.seqWindowSize < inclusion.number) return drop('included after the sequencing window');

  let origin = epoch;
  if (batch.epochNum < epoch.number) return drop('epoch older than the safe head epoch');
  if (batch.epochNum === epoch.number + 1) {
    const next = l1Blocks[1];
    if (next === undefined) return undecided('next L1 origin not known yet');
    origin = next;
  } else if (batch.epochNum > epoch.number + 1) {
    return drop('epoch advances more than one L1 block');
  }
  if (toHex(batch.epochHash) !== origin.hash) return drop('epoch hash is not the canonical L1 block');
  if (batch.timestamp < origin.timestamp) return drop('timestamp before the L1 origin');

  const max = origin.timestamp + maxSequencerDrift(cfg, origin.timestamp);
  if (batch.timestamp > max) {
    if (batch.transactions.length > 0) return drop('sequencer drift exceeded with transactions');
    // An empty batch past the drift is allowed only while the next origin could not have been adopted.
    if (epoch.number === origin.number) {
      const next = l1Blocks[1];
      if (next === undefined) return undecided('next L1 origin needed to judge drift');
      if (batch.timestamp >= next.timestamp) return drop('drift exceeded without adopting the next L1 origin');
    }
  }
  if (isJovianActivationBlock(cfg, batch.timestamp) && batch.transactions.length > 0) {
    return drop('Jovian activation block must not carry transactions');
  }
  if (isInteropActivationBlock(cfg, batch.timestamp) && batch.transactions.length > 0) {
    return drop('Interop activation block must not carry transactions');
  }
  return checkTransactions(cfg, batch.timestamp, batch.transactions);
}

export interface PrefixResult extends Verdict {
  /** The L2 block the span batch builds on (the safe head, or an earlier safe block when it overlaps). */
  parentBlock?: L2BlockRef;
}

/** The span batch checks that do not look at its blocks one by one (used alone from Holocene). */
export async function checkSpanBatchPrefix(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  safe: L2BlockRef,
  span: SpanBatchView,
  inclusion: L1BlockRef,
  l2: SafeBlockFetcher,
): Promise<PrefixResult> {
  const epoch = l1Blocks[0];
  const first = span.batches[0];
  const last = span.batches[span.batches.length - 1];
  if (epoch === undefined) return undecided('no L1 origin buffered');
  if (first === undefined || last === undefined) return drop('empty span batch');
  const next = safe.timestamp + cfg.blockTime;
  const startEpoch = first.epochNum;

  let origin = epoch;
  if (startEpoch === epoch.number + 1) {
    const n = l1Blocks[1];
    if (n === undefined) return undecided('span batch advances the epoch; next L1 origin not known yet');
    origin = n;
  }
  if (!isDelta(cfg, origin.timestamp)) return drop('span batch with an L1 origin before Delta');

  const holocene = isHolocene(cfg, inclusion.timestamp);
  if (first.timestamp > next)
    return holocene ? drop('future span batch (Holocene forbids gaps)') : { validity: 'future' };
  if (last.timestamp < next)
    return holocene ? { validity: 'past' } : drop('span batch has no block after the safe head');

  let parentBlock = safe;
  if (first.timestamp < next) {
    if (first.timestamp > safe.timestamp) return drop('span batch timestamp misaligned with the safe chain');
    if ((safe.timestamp - first.timestamp) % cfg.blockTime !== 0) return drop('span batch does not overlap exactly');
    const parentNum = safe.number - (safe.timestamp - first.timestamp) / cfg.blockTime - 1;
    try {
      parentBlock = await l2.l2BlockRefByNumber(parentNum);
    } catch (err) {
      return undecided(`L2 block ${parentNum} unavailable: ${(err as Error).message}`);
    }
  }
  if (!startsWith(parentBlock.hash, span.parentCheck)) return drop('parent check does not match');
  if (startEpoch + cfg.seqWindowSize < inclusion.number) return drop('included after the sequencing window');
  if (startEpoch > parentBlock.l1origin.number + 1) return drop('epoch advances more than one L1 block');

  const endOrigin = l1Blocks.find((b) => b.number === last.epochNum);
  if (endOrigin === undefined) return undecided('L1 origin of the last block not buffered yet');
  if (!startsWith(endOrigin.hash, span.l1OriginCheck)) return drop('L1 origin check does not match');
  if (startEpoch < parentBlock.l1origin.number) return drop('epoch older than the parent epoch');
  return { validity: 'accept', parentBlock };
}

/** Full span batch validity (before Holocene): the prefix, every new block, and the overlap with the safe chain. */
export async function checkSpanBatch(
  cfg: RollupConfig,
  l1Blocks: readonly L1BlockRef[],
  safe: L2BlockRef,
  span: SpanBatchView,
  inclusion: L1BlockRef,
  l2: SafeBlockFetcher,
): Promise<Verdict> {
  const prefix = await checkSpanBatchPrefix(cfg, l1Blocks, safe, span, inclusion, l2);
  if (prefix.validity !== 'accept') return prefix;
  const parent = prefix.parentBlock as L2BlockRef;
  const els = span.batches;

  let originIndex = 0;
  let originAdvanced = (els[0] as SpanBatchElement).epochNum === parent.l1origin.number + 1;
  for (const [i, el] of els.entries()) {
    if (i > 0) originAdvanced = el.epochNum > (els[i - 1] as SpanBatchElement).epochNum;
    if (el.timestamp <= safe.timestamp) continue;
    if (el.epochNum < safe.l1origin.number) return drop('block L1 origin before the safe head L1 origin');
    const at = l1Blocks.findIndex((b, j) => j >= originIndex && b.number === el.epochNum);
    if (at < 0) return drop(`L1 origin ${el.epochNum} of a span block not found`);
    originIndex = at;
    const origin = l1Blocks[at] as L1BlockRef;
    if (el.timestamp < origin.timestamp) return drop('block timestamp before its L1 origin');
    const max = origin.timestamp + maxSequencerDrift(cfg, origin.timestamp);
    if (el.timestamp > max) {
      if (el.transactions.length > 0) return drop('sequencer drift exceeded with transactions');
      if (!originAdvanced) {
        const nextOrigin = l1Blocks[originIndex + 1];
        if (nextOrigin === undefined) return undecided('next L1 origin needed to judge drift');
        if (el.timestamp >= nextOrigin.timestamp) return drop('drift exceeded without adopting the next L1 origin');
      }
    }
    const txs = checkTransactions(cfg, el.timestamp, el.transactions);
    if (txs.validity !== 'accept') return txs;
  }

  // Blocks that overlap the safe chain must be exactly the ones already there.
  const next = safe.timestamp + cfg.blockTime;
  if ((els[0] as SpanBatchElement).timestamp < next) {
    for (let i = 0; i < safe.number - parent.number; i++) {
      const num = parent.number + i + 1;
      let block: Awaited<ReturnType<SafeBlockFetcher['l2BlockByNumber']>>;
      try {
        block = await l2.l2BlockByNumber(num);
      } catch (err) {
        return undecided(`L2 block ${num} unavailable: ${(err as Error).message}`);
      }
      const el = els[i] as SpanBatchElement;
      const userTxs = block.transactions.filter((t) => t[0] !== DEPOSIT_TX_TYPE);
      if (userTxs.length !== el.transactions.length) return drop(`overlapped block ${num} transaction count differs`);
      for (const [j, tx] of userTxs.entries()) {
        if (!equalBytes(tx, el.transactions[j] as Uint8Array))
          return drop(`overlapped block ${num} transaction ${j} differs`);
      }
      if (block.ref.l1origin.number !== el.epochNum) return drop(`overlapped block ${num} L1 origin differs`);
    }
  }
  return ACCEPT;
}

/**
 * The span batch's blocks after the safe head as singular batches (parent hash left zero: the batch queue fills it
 * in). Returns a drop verdict when a block's L1 origin is older than the safe head's or not buffered: with
 * overlapping span batches that is the first place it shows, and it must invalidate the batch, not stall
 * derivation (holocene/derivation.md, the note on overlapping span batches).
 */
export function spanToSingularBatches(
  span: SpanBatchView,
  l1Blocks: readonly L1BlockRef[],
  safe: L2BlockRef,
): SingularBatch[] | Verdict {
  const out: SingularBatch[] = [];
  let originIndex = 0;
  for (const el of span.batches) {
    if (el.timestamp <= safe.timestamp) continue;
    if (el.epochNum < safe.l1origin.number) return drop('block L1 origin before the safe head L1 origin');
    const at = l1Blocks.findIndex((b, j) => j >= originIndex && b.number === el.epochNum);
    if (at < 0) return drop(`L1 origin ${el.epochNum} of a span block not found`);
    originIndex = at;
    out.push({
      parentHash: new Uint8Array(32),
      epochNum: el.epochNum,
      epochHash: fromHexHash((l1Blocks[at] as L1BlockRef).hash),
      timestamp: el.timestamp,
      transactions: el.transactions,
    });
  }
  return out;
}

function fromHexHash(h: string): Uint8Array {
  return Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
}
