// The binary span batch (batch_version 1, delta/span-batches.md), decoded and encoded field by field so that a
// decode/encode round trip is byte-exact:
//   prefix  = rel_timestamp ++ l1_origin_num ++ parent_check(20) ++ l1_origin_check(20)
//   payload = block_count ++ origin_bits ++ block_tx_counts ++ txs
//   txs     = contract_creation_bits ++ y_parity_bits ++ tx_sigs ++ tx_tos ++ tx_datas ++ tx_nonces ++ tx_gases
//             ++ protected_bits
// Element counts are bounded by MAX_SPAN_BATCH_ELEMENT_COUNT before anything is allocated.

import { rlpItemLength } from '../../primitives/rlpStream.js';
import { MAX_SPAN_BATCH_ELEMENT_COUNT } from '../../primitives/rollup/config.js';
import { ByteReader, batchError, encodeUvarint, pushBytes, readBits, writeBits } from './bytes.js';

export interface SpanBatchTxs {
  readonly totalBlockTxCount: number;
  /** One bit per transaction. */
  readonly contractCreationBits: Uint8Array;
  readonly yParityBits: Uint8Array;
  /** 32-byte r and s per transaction. */
  readonly txSigs: ReadonlyArray<{ readonly r: Uint8Array; readonly s: Uint8Array }>;
  /** 20 bytes per non-creation transaction. */
  readonly txTos: readonly Uint8Array[];
  /** Raw tx_data entries (type byte included for typed transactions). */
  readonly txDatas: readonly Uint8Array[];
  readonly txTypes: readonly number[];
  readonly txNonces: readonly bigint[];
  readonly txGases: readonly bigint[];
  /** One bit per legacy transaction. */
  readonly protectedBits: Uint8Array;
}

export interface RawSpanBatch {
  readonly relTimestamp: bigint;
  readonly l1OriginNum: bigint;
  readonly parentCheck: Uint8Array;
  readonly l1OriginCheck: Uint8Array;
  readonly blockCount: number;
  /** One bit per block: 1 when the block advanced the L1 origin. */
  readonly originBits: Uint8Array;
  readonly blockTxCounts: readonly number[];
  readonly txs: SpanBatchTxs;
}

function count(r: ByteReader, what: string): number {
  const v = r.uvarint(what);
  if (v > BigInt(MAX_SPAN_BATCH_ELEMENT_COUNT)) batchError(`span batch: ${what} ${v} exceeds the element limit`);
  return Number(v);
}

/** One tx_data entry: an optional type byte (< 0x80), then an RLP list (op-node's ReadTxData). */
function readTxData(r: ByteReader): { raw: Uint8Array; type: number } {
  const start = r.offset;
  if (r.remaining < 1) batchError('span batch: tx data: unexpected end of data');
  const first = r.data[start] as number;
  const type = first <= 0x7f ? first : 0;
  const listStart = first <= 0x7f ? start + 1 : start;
  const head = r.data[listStart];
  if (head === undefined) batchError('span batch: tx data: unexpected end of data');
  if (head < 0xc0) batchError('span batch: tx data: RLP prefix must be a list');
  let len: number;
  try {
    len = rlpItemLength(r.data, listStart);
  } catch {
    return batchError('span batch: tx data: truncated RLP prefix');
  }
  if (len > MAX_SPAN_BATCH_ELEMENT_COUNT) batchError('span batch: tx data exceeds the size limit');
  if (listStart + len > r.data.length) batchError('span batch: tx data: unexpected end of data');
  r.offset = listStart + len;
  return { raw: r.data.subarray(start, listStart + len), type };
}

function decodeTxs(r: ByteReader, total: number): SpanBatchTxs {
  const contractCreationBits = readBits(r, total, 'contract creation bits');
  const yParityBits = readBits(r, total, 'y parity bits');
  const txSigs: Array<{ r: Uint8Array; s: Uint8Array }> = [];
  for (let i = 0; i < total; i++) txSigs.push({ r: r.bytes(32, 'tx sig r'), s: r.bytes(32, 'tx sig s') });
  let creations = 0;
  for (let i = 0; i < total; i++) creations += contractCreationBits[i] as number;
  const txTos: Uint8Array[] = [];
  for (let i = 0; i < total - creations; i++) txTos.push(r.bytes(20, 'tx to'));
  const txDatas: Uint8Array[] = [];
  const txTypes: number[] = [];
  let legacy = 0;
  for (let i = 0; i < total; i++) {
    const { raw, type } = readTxData(r);
    txDatas.push(raw);
    txTypes.push(type);
    if (type === 0) legacy++;
  }
  const txNonces: bigint[] = [];
  for (let i = 0; i < total; i++) txNonces.push(r.uvarint('tx nonce'));
  const txGases: bigint[] = [];
  for (let i = 0; i < total; i++) txGases.push(r.uvarint('tx gas'));
  const protectedBits = readBits(r, legacy, 'protected bits');
  return {
    totalBlockTxCount: total,
    contractCreationBits,
    yParityBits,
    txSigs,
    txTos,
    txDatas,
    txTypes,
    txNonces,
    txGases,
    protectedBits,
  };
}

/** Decodes the content after the version byte; trailing bytes are ignored. Throws BATCH_INVALID. */
export function decodeRawSpanBatch(content: Uint8Array): RawSpanBatch {
  const r = new ByteReader(content);
  const relTimestamp = r.uvarint('rel timestamp');
  const l1OriginNum = r.uvarint('l1 origin num');
  const parentCheck = r.bytes(20, 'parent check');
  const l1OriginCheck = r.bytes(20, 'l1 origin check');
  const blockCount = count(r, 'block count');
  if (blockCount === 0) batchError('span batch: empty span batch');
  const originBits = readBits(r, blockCount, 'origin bits');
  const blockTxCounts: number[] = [];
  let total = 0;
  for (let i = 0; i < blockCount; i++) {
    const n = count(r, 'block tx count');
    blockTxCounts.push(n);
    total += n;
  }
  if (total > MAX_SPAN_BATCH_ELEMENT_COUNT) batchError(`span batch: ${total} transactions exceed the element limit`);
  const txs = decodeTxs(r, total);
  return { relTimestamp, l1OriginNum, parentCheck, l1OriginCheck, blockCount, originBits, blockTxCounts, txs };
}

/** Encodes the content (without the version byte). */
export function encodeRawSpanBatch(b: RawSpanBatch): Uint8Array {
  if (b.blockCount === 0 || b.blockTxCounts.length !== b.blockCount || b.originBits.length !== b.blockCount) {
    batchError('span batch: block count does not match its fields');
  }
  const t = b.txs;
  const out: number[] = [];
  encodeUvarint(b.relTimestamp, out);
  encodeUvarint(b.l1OriginNum, out);
  if (b.parentCheck.length !== 20 || b.l1OriginCheck.length !== 20) batchError('span batch: checks must be 20 bytes');
  pushBytes(out, b.parentCheck);
  pushBytes(out, b.l1OriginCheck);
  encodeUvarint(b.blockCount, out);
  writeBits(b.originBits, out);
  for (const n of b.blockTxCounts) encodeUvarint(n, out);
  writeBits(t.contractCreationBits, out);
  writeBits(t.yParityBits, out);
  for (const sig of t.txSigs) {
    pushBytes(out, sig.r);
    pushBytes(out, sig.s);
  }
  for (const to of t.txTos) pushBytes(out, to);
  for (const d of t.txDatas) pushBytes(out, d);
  for (const n of t.txNonces) encodeUvarint(n, out);
  for (const g of t.txGases) encodeUvarint(g, out);
  writeBits(t.protectedBits, out);
  return Uint8Array.from(out);
}
