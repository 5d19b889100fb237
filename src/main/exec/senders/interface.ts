// SenderRecovery: the first stage of block import. Implementations: inline (calling thread) and pooled
// (worker threads, so recovery of the next blocks overlaps execution of this one).

/** A recovered sender, or why the signature is invalid. */
export type SenderResult = { ok: true; address: Uint8Array } | { ok: false; code: string; message: string };

export interface SenderRecovery {
  /** Senders of raw transactions (consensus encoding), in order. */
  recover(txs: readonly Uint8Array[]): Promise<SenderResult[]>;
  /**
   * The same, chunk by chunk as each finishes, so execution can start on the first transactions while the pool
   * recovers the rest (newPayload has no next block to recover ahead for).
   */
  recoverStream(txs: readonly Uint8Array[]): SenderStream;
  close(): Promise<void>;
}

/** Chunk k resolves the senders of transactions [k·chunkSize, (k+1)·chunkSize). */
export interface SenderStream {
  readonly chunkSize: number;
  readonly chunks: ReadonlyArray<Promise<SenderResult[]>>;
}

/** The result for transaction i of a stream. */
export async function streamedSender(stream: SenderStream, i: number): Promise<SenderResult | undefined> {
  const chunk = await stream.chunks[Math.floor(i / stream.chunkSize)];
  return chunk?.[i % stream.chunkSize];
}
