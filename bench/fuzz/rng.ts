// The fuzzers' random stream: xorshift32, so a crash reproduces from its seed.

export interface Rng {
  /** A value in [0, n). */
  int(n: number): number;
  /** n random bytes. */
  bytes(n: number): Uint8Array;
}

export function rng(seed: number): Rng {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return {
    int: (n: number) => next() % n,
    bytes: (n: number) => Uint8Array.from({ length: n }, () => next() & 0xff),
  };
}
