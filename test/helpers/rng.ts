// Deterministic random keys and values for tests (xorshift32), so a failure reproduces from its seed.

export interface XorshiftRng {
  /** The next 32-bit value of the stream. */
  next(): number;
  /** A value in [0, n). */
  int(n: number): number;
  /** n random bytes. */
  bytes(n: number): Uint8Array;
}

/** An xorshift32 stream from `seed` (a seed of 0 counts as 1). */
export function xorshiftRng(seed: number): XorshiftRng {
  let x = seed >>> 0 || 1;
  const next = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return {
    next,
    int: (n) => next() % n,
    bytes: (n) => Uint8Array.from({ length: n }, () => next() & 0xff),
  };
}
