// What derivation reads from layer 1: blocks, transactions and receipts (L1Source, over JSON-RPC) and blobs
// (BlobSource, over the beacon API). Hashes are 0x-prefixed lowercase hex, so they compare with === and key maps;
// numbers and timestamps are plain numbers (far below 2^53).
import type { Header } from '../../primitives/block/header.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import type { DecodedTx } from '../../primitives/tx/decode.js';

export type Hex = `0x${string}`;

export interface L1BlockRef {
  hash: Hex;
  number: number;
  parentHash: Hex;
  timestamp: number;
}

/** A block's reference and its whole header (base fee, excess blob gas, mix digest, beacon root…). */
export interface L1BlockInfo extends L1BlockRef {
  header: Header;
}

/**
 * An L1 transaction in its consensus form: `raw`, `hash`, type, `to`, data, blob versioned hashes. The sender is
 * not included: recover it from the signature (exec/senders) rather than trust the RPC's `from`.
 */
export type L1Transaction = DecodedTx;

export type BlockLabel = 'latest' | 'safe' | 'finalized';

export interface L1CallOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Layer-1 block data. Errors are TernErrors with severity `temporary` (retry later): L1_NOT_FOUND (the node does
 * not have it, yet or any more), L1_RPC (transport or JSON-RPC failure after retries), L1_BLOCK_INVALID (the answer
 * failed verification: a hash or root does not match; the message names the block and field).
 */
export interface L1Source {
  blockRefByLabel(label: BlockLabel, opts?: L1CallOptions): Promise<L1BlockRef>;
  blockRefByNumber(num: number, opts?: L1CallOptions): Promise<L1BlockRef>;
  blockRefByHash(hash: Hex, opts?: L1CallOptions): Promise<L1BlockRef>;
  infoByHash(hash: Hex, opts?: L1CallOptions): Promise<L1BlockInfo>;
  infoAndTxsByHash(hash: Hex, opts?: L1CallOptions): Promise<{ info: L1BlockInfo; txs: L1Transaction[] }>;
  /** All receipts of the block, in transaction order (logs for deposits and system-config updates). */
  fetchReceipts(hash: Hex, opts?: L1CallOptions): Promise<{ info: L1BlockInfo; receipts: Receipt[] }>;
}

/** A blob's position among all blobs of its block (across its transactions) and its versioned hash. */
export interface IndexedBlobHash {
  index: number;
  hash: Hex;
}

/**
 * Blobs of a layer-1 block, each verified against its versioned hash. Errors (TernError, severity `temporary`):
 * BLOB_NOT_FOUND (missing at the beacon endpoint and every fallback: names block and hash), BLOB_INVALID (every
 * source answered with data that fails verification), BEACON_UNAVAILABLE (no endpoint answered).
 */
export interface BlobSource {
  /** The blobs, in the order of `hashes` (131,072 bytes each). */
  getBlobs(ref: L1BlockRef, hashes: readonly IndexedBlobHash[], opts?: L1CallOptions): Promise<Uint8Array[]>;
}
