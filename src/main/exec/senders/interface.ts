// SenderRecovery: the first stage of block import. Implementations: inline (calling thread) and pooled
// (worker threads, so recovery of the next blocks overlaps execution of this one).

/** A recovered sender, or why the signature is invalid. */
export type SenderResult = { ok: true; address: Uint8Array } | { ok: false; code: string; message: string };

export interface SenderRecovery {
  /** Senders of raw transactions (consensus encoding), in order. */
  recover(txs: readonly Uint8Array[]): Promise<SenderResult[]>;
  close(): Promise<void>;
}
