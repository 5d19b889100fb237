// The derived span batch: the raw binary batch expanded into one element per L2 block (timestamp, L1 origin number,
// full signed transactions), the conversions to singular batches given the L1 origins, and the batcher-side builder
// that turns consecutive singular batches back into a raw span batch.
import type { BlockId } from '../../primitives/rollup/blockRef.js';
import { batchError, equalBytes, fromHex } from './bytes.js';
import type { RawSpanBatch, SpanBatchTxs } from './rawSpanBatch.js';
import type { SingularBatch } from './singularBatch.js';
import {
  decodeSpanTxData,
  encodeSpanTxData,
  fromFullTx,
  LEGACY_TX_TYPE,
  type SpanTxParts,
  toFullTx,
} from './spanBatchTx.js';

export interface SpanBatchElement {
  readonly epochNum: number;
  readonly timestamp: number;
  readonly transactions: readonly Uint8Array[];
}

export interface SpanBatch {
  /** First 20 bytes of the first block's parent hash. */
  readonly parentCheck: Uint8Array;
  /** First 20 bytes of the last block's L1 origin hash. */
  readonly l1OriginCheck: Uint8Array;
  readonly batches: readonly SpanBatchElement[];
  /** Origin bit per block, as encoded (bit 0 is only meaningful to the batch queue's window check). */
  readonly originBits: Uint8Array;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Expands a raw span batch: block i has timestamp genesis + rel_timestamp + i·block_time, and the L1 origin
 * numbers count back from l1_origin_num over the origin bits. Transactions are rebuilt with `chainId`.
 * Throws BATCH_INVALID (unknown tx type, SetCode creation, bad field).
 */
export function deriveSpanBatch(
  raw: RawSpanBatch,
  blockTime: number,
  genesisTimestamp: number,
  chainId: bigint,
): SpanBatch {
  if (raw.blockCount === 0) batchError('span batch: empty span batch');
  if (raw.relTimestamp > MAX_SAFE || raw.l1OriginNum > MAX_SAFE) batchError('span batch: prefix value too large');
  const origins = new Array<number>(raw.blockCount);
  let origin = Number(raw.l1OriginNum);
  for (let i = raw.blockCount - 1; i >= 0; i--) {
    origins[i] = origin;
    if (raw.originBits[i] === 1 && i > 0) origin--;
  }
  if (origin < 0) batchError('span batch: origin bits count below L1 block 0');
  const txs = fullTransactions(raw.txs, chainId);
  const batches: SpanBatchElement[] = [];
  let txIdx = 0;
  const start = genesisTimestamp + Number(raw.relTimestamp);
  for (let i = 0; i < raw.blockCount; i++) {
    const n = raw.blockTxCounts[i] as number;
    batches.push({
      epochNum: origins[i] as number,
      timestamp: start + blockTime * i,
      transactions: txs.slice(txIdx, txIdx + n),
    });
    txIdx += n;
  }
  return { parentCheck: raw.parentCheck, l1OriginCheck: raw.l1OriginCheck, batches, originBits: raw.originBits };
}

/** Recovers v per transaction (legacy: protected bit + chain id) and rebuilds the signed transactions. */
export function fullTransactions(t: SpanBatchTxs, chainId: bigint): Uint8Array[] {
  const out: Uint8Array[] = [];
  let toIdx = 0;
  let legacyIdx = 0;
  for (let i = 0; i < t.totalBlockTxCount; i++) {
    const data = decodeSpanTxData(t.txDatas[i] as Uint8Array);
    const y = BigInt(t.yParityBits[i] as number);
    let v = y;
    if (data.type === LEGACY_TX_TYPE) {
      v = t.protectedBits[legacyIdx++] === 1 ? chainId * 2n + 35n + y : 27n + y;
    }
    let to: Uint8Array | undefined;
    if (t.contractCreationBits[i] === 0) {
      to = t.txTos[toIdx++];
      if (to === undefined) batchError('span batch: not enough tx tos');
    }
    const sig = t.txSigs[i] as { r: Uint8Array; s: Uint8Array };
    out.push(
      toFullTx(
        data,
        { nonce: t.txNonces[i] as bigint, gas: t.txGases[i] as bigint, to, v, r: sig.r, s: sig.s },
        chainId,
      ),
    );
  }
  return out;
}

/** Compares the 20-byte origin check with an L1 block hash (0x hex). */
export function checkOriginHash(b: SpanBatch, hash: string): boolean {
  return equalBytes(b.l1OriginCheck, fromHex(hash).subarray(0, 20));
}

export function checkParentHash(b: SpanBatch, hash: string): boolean {
  return equalBytes(b.parentCheck, fromHex(hash).subarray(0, 20));
}

/**
 * The singular batches of the blocks after the safe head (op-node's GetSingularBatches): epoch hashes come from
 * `l1Origins` (ascending, covering the span's origins). Parent hashes are left zero for the batch queue to fill.
 */
export function spanToSingularBatches(
  b: SpanBatch,
  l1Origins: readonly BlockId[],
  safeHeadTimestamp: number,
): SingularBatch[] {
  const out: SingularBatch[] = [];
  let originIdx = 0;
  for (const el of b.batches) {
    if (el.timestamp <= safeHeadTimestamp) continue;
    let hash: string | undefined;
    for (let i = originIdx; i < l1Origins.length; i++) {
      if ((l1Origins[i] as BlockId).number === el.epochNum) {
        originIdx = i;
        hash = (l1Origins[i] as BlockId).hash;
        break;
      }
    }
    if (hash === undefined) batchError(`span batch: no L1 origin for epoch ${el.epochNum}`);
    out.push({
      parentHash: new Uint8Array(32),
      epochNum: el.epochNum,
      epochHash: fromHex(hash),
      timestamp: el.timestamp,
      transactions: el.transactions,
    });
  }
  return out;
}

// ---- batcher side ----

/** Accumulates consecutive singular batches into one span batch (op-node's SpanBatch.AppendSingularBatch). */
export class SpanBatchBuilder {
  private readonly elements: SpanBatchElement[] = [];
  private readonly originBits: number[] = [];
  private readonly blockTxCounts: number[] = [];
  private readonly parts: SpanTxParts[] = [];
  private parentCheck = new Uint8Array(20);
  private l1OriginCheck = new Uint8Array(20);

  constructor(
    private readonly genesisTimestamp: number,
    private readonly chainId: bigint,
  ) {}

  /** `seqNum` is the block's sequence number in its epoch; 0 sets the first block's origin bit. */
  append(batch: SingularBatch, seqNum: number): void {
    const prev = this.elements[this.elements.length - 1];
    if (prev && prev.timestamp > batch.timestamp) batchError('span batch builder: batches must be in timestamp order');
    // Parse first, so a bad transaction leaves the builder unchanged.
    const parts = batch.transactions.map((tx) => fromFullTx(tx, this.chainId));
    let bit = 0;
    if (prev === undefined) {
      if (seqNum === 0) bit = 1;
      this.parentCheck = batch.parentHash.slice(0, 20);
    } else if (prev.epochNum < batch.epochNum) {
      bit = 1;
    }
    this.l1OriginCheck = batch.epochHash.slice(0, 20);
    this.elements.push({ epochNum: batch.epochNum, timestamp: batch.timestamp, transactions: batch.transactions });
    this.originBits.push(bit);
    this.blockTxCounts.push(batch.transactions.length);
    this.parts.push(...parts);
  }

  get blockCount(): number {
    return this.elements.length;
  }

  toRaw(): RawSpanBatch {
    const first = this.elements[0];
    const last = this.elements[this.elements.length - 1];
    if (first === undefined || last === undefined) batchError('span batch builder: no batches');
    const n = this.parts.length;
    const contractCreationBits = new Uint8Array(n);
    const yParityBits = new Uint8Array(n);
    const protectedBits: number[] = [];
    const txTos: Uint8Array[] = [];
    this.parts.forEach((p, i) => {
      if (p.to === undefined) contractCreationBits[i] = 1;
      else txTos.push(p.to);
      yParityBits[i] = p.yParity;
      if (p.txData.type === LEGACY_TX_TYPE) protectedBits.push(p.protected ? 1 : 0);
    });
    return {
      relTimestamp: BigInt(first.timestamp - this.genesisTimestamp),
      l1OriginNum: BigInt(last.epochNum),
      parentCheck: this.parentCheck,
      l1OriginCheck: this.l1OriginCheck,
      blockCount: this.elements.length,
      originBits: Uint8Array.from(this.originBits),
      blockTxCounts: [...this.blockTxCounts],
      txs: {
        totalBlockTxCount: n,
        contractCreationBits,
        yParityBits,
        txSigs: this.parts.map((p) => ({ r: p.r, s: p.s })),
        txTos,
        txDatas: this.parts.map((p) => encodeSpanTxData(p.txData)),
        txTypes: this.parts.map((p) => p.txData.type),
        txNonces: this.parts.map((p) => p.nonce),
        txGases: this.parts.map((p) => p.gas),
        protectedBits: Uint8Array.from(protectedBits),
      },
    };
  }
}
