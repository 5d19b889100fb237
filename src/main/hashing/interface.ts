// KeccakHasher: batched keccak-256, the first worker service. `inline.ts` hashes on the calling thread, `pooled.ts`
// in a worker pool; one test suite runs over both.

export interface HashOptions {
  /** Abandons the request: it rejects with ABORTED (work already running may still finish, unobserved). */
  signal?: AbortSignal;
}

export interface HashPackedOptions extends HashOptions {
  /**
   * The caller gives up `data` and `offsets`: a pooled hasher may transfer their buffers to a worker instead of
   * copying them, leaving the caller's views detached (length 0). Default false: the caller keeps them intact.
   */
  transfer?: boolean;
}

export interface KeccakHasher {
  /** Threads the hashing runs on (1 for the inline hasher). */
  readonly threads: number;
  /**
   * keccak-256 of each input, in order. The digests are 32-byte views that may share one underlying buffer.
   * The inputs are read (copied) some time before the promise settles: do not mutate them until then.
   */
  hashBatch(inputs: readonly Uint8Array[], opts?: HashOptions): Promise<Uint8Array[]>;
  /**
   * keccak-256 of each packed input data[offsets[i], offsets[i+1]); the digests concatenated, 32 bytes each.
   * Rejects with INVALID_OFFSETS when offsets decrease or run past data. Without `transfer`, do not mutate data or
   * offsets until the promise settles.
   */
  hashPacked(data: Uint8Array, offsets: Uint32Array, opts?: HashPackedOptions): Promise<Uint8Array>;
}
