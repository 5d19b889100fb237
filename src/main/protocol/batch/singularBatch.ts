// Singular batch (batch_version 0): rlp([parent_hash, epoch_number, epoch_hash, timestamp, transaction_list]).
// Decoding follows geth's RLP rules (canonical, hashes exactly 32 bytes, uint64 integers); bytes after the list are
// ignored, as the spec allows.
import { type RlpDecoded, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { rlpItemLength } from '../../primitives/rlpStream.js';
import { batchError } from './bytes.js';

export interface SingularBatch {
  /** 32 bytes; all zero for batches taken out of a span batch (the batch queue checks parents there). */
  readonly parentHash: Uint8Array;
  readonly epochNum: number;
  /** 32 bytes. */
  readonly epochHash: Uint8Array;
  readonly timestamp: number;
  /** EIP-2718 encoded transactions (no deposits). */
  readonly transactions: readonly Uint8Array[];
}

const MAX_U64 = (1n << 64n) - 1n;

function u64(item: RlpDecoded | undefined, what: string): number {
  if (!(item instanceof Uint8Array)) return batchError(`singular batch: ${what} must be bytes`);
  if (item.length > 8) batchError(`singular batch: ${what} does not fit 64 bits`);
  if (item.length > 0 && item[0] === 0) batchError(`singular batch: ${what} has a leading zero`);
  let v = 0n;
  for (const b of item) v = (v << 8n) | BigInt(b);
  if (v > MAX_U64 || v > BigInt(Number.MAX_SAFE_INTEGER)) batchError(`singular batch: ${what} ${v} is too large`);
  return Number(v);
}

function hash(item: RlpDecoded | undefined, what: string): Uint8Array {
  if (!(item instanceof Uint8Array) || item.length !== 32)
    return batchError(`singular batch: ${what} must be 32 bytes`);
  return item;
}

/** Decodes the content after the version byte. Throws BATCH_INVALID. */
export function decodeSingularBatch(content: Uint8Array): SingularBatch {
  if (content.length === 0) batchError('singular batch: empty');
  let decoded: RlpDecoded;
  try {
    const len = rlpItemLength(content, 0);
    if (len > content.length) batchError('singular batch: truncated');
    decoded = rlpDecode(content.subarray(0, len));
  } catch (err) {
    return batchError(`singular batch: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(decoded)) return batchError('singular batch: not a list');
  if (decoded.length !== 5) batchError(`singular batch: ${decoded.length} fields, want 5`);
  const txs = decoded[4];
  if (!Array.isArray(txs)) return batchError('singular batch: transaction_list must be a list');
  return {
    parentHash: hash(decoded[0], 'parent_hash'),
    epochNum: u64(decoded[1], 'epoch_number'),
    epochHash: hash(decoded[2], 'epoch_hash'),
    timestamp: u64(decoded[3], 'timestamp'),
    transactions: txs.map((t, i) => {
      if (!(t instanceof Uint8Array)) return batchError(`singular batch: transaction ${i} must be bytes`);
      return t;
    }),
  };
}

/** Encodes the content (without the version byte). */
export function encodeSingularBatch(b: SingularBatch): Uint8Array {
  return rlpEncode([b.parentHash, b.epochNum, b.epochHash, b.timestamp, [...b.transactions]]);
}
