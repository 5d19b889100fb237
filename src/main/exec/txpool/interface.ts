// The transaction pool as the rest of tern-exec sees it. The block builder (engine getPayload, --dev sealing)
// pulls executable transactions from here; the RPC layer submits. Implementation: pool.ts.
import type { DecodedTx } from '../../primitives/tx/decode.js';

/** A transaction ready for inclusion, with its recovered sender (20 bytes). */
export interface PendingTx {
  readonly tx: DecodedTx;
  readonly sender: Uint8Array;
}

/** Why a submission was refused; `code` is geth's JSON-RPC error code for it (-32000 for most). */
export type AddResult = { ok: true; hash: Uint8Array } | { ok: false; code: number; message: string };

export interface BlockTxFilter {
  /** Base fee of the block being built: transactions whose fee cap is below it are skipped. */
  baseFee: bigint;
  /** Blob base fee of the block being built, when blobs are allowed in it. */
  blobBaseFee?: bigint;
  /** Gas left in the block. */
  gasLimit: bigint;
}

export interface TxPool {
  /** Validate and add a raw signed transaction (consensus encoding; blob transactions in network form). */
  add(raw: Uint8Array, opts?: { local?: boolean }): Promise<AddResult>;
  /**
   * Executable transactions in the order a miner includes them: by effective tip across senders, by nonce within a
   * sender. The builder may skip a sender's remaining transactions after one fails (`skipSender`).
   */
  pendingForBlock(filter: BlockTxFilter): PendingIterator;
  /** Called after a new head is set: drop included transactions, re-check nonces and balances, promote queued. */
  onNewHead(): Promise<void>;
  /** Hashes of transactions as they become pending (for eth_subscribe newPendingTransactions). */
  subscribe(listener: (hash: Uint8Array) => void): () => void;
  close(): Promise<void>;
}

export interface PendingIterator extends Iterable<PendingTx> {
  /** Skip the rest of this sender's transactions in this iteration (one of them did not fit or failed). */
  skipSender(sender: Uint8Array): void;
}
