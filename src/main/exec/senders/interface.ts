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

/**
 * Chunk k resolves the senders of transactions [starts[k], starts[k+1]) (the last runs to the end). Chunks may grow:
 * a small first one lets execution start sooner.
 */
export interface SenderStream {
  readonly starts: readonly number[];
  readonly chunks: ReadonlyArray<Promise<SenderResult[]>>;
}

/** The chunk of a stream that holds transaction i (the last chunk whose start is ≤ i). */
function chunkOf(starts: readonly number[], i: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The result for transaction i of a stream. */
export async function streamedSender(stream: SenderStream, i: number): Promise<SenderResult | undefined> {
  const k = chunkOf(stream.starts, i);
  const chunk = await stream.chunks[k];
  return chunk?.[i - (stream.starts[k] ?? 0)];
}
