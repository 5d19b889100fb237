// The seeded random streams of the fuzzers, the benchmark generators and the tests: the same seed gives the same
// stream on every machine, so a failure reproduces from its seed and a cached corpus stays valid. Tests import it
// from here (bench/ never imports test/). Three generators, because stored corpora and cached chains depend on each
// one's exact stream: xorshift32 (fuzzers, trie and hasher tests), mulberry32 (EVM differential cases, synthetic
// chains) and sfc32 (the import benchmark's chain).

export interface Rng {
  /** The next 32-bit value of the stream. */
  next(): number;
  /** A value in [0, 1). */
  float(): number;
  /** A value in [0, n). */
  int(n: number): number;
  pick<T>(xs: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** n random bytes. */
  bytes(n: number): Uint8Array;
}

const TWO_32 = 4294967296;

/** xorshift32 from `seed` (a seed of 0 counts as 1); int(n) is next() mod n, each byte the low 8 bits of next(). */
export function xorshiftRng(seed: number): Rng {
  let x = seed >>> 0 || 1;
  const next = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  const int = (n: number): number => next() % n;
  const float = (): number => next() / TWO_32;
  return {
    next,
    float,
    int,
    pick: (xs) => xs[int(xs.length)] as (typeof xs)[number],
    chance: (p) => float() < p,
    bytes: (n) => Uint8Array.from({ length: n }, () => next() & 0xff),
  };
}

/** An Rng whose int, pick and bytes scale float() (floor(float() * n)), over a generator of 32-bit values. */
function scaled(next: () => number): Rng {
  const float = (): number => next() / TWO_32;
  const int = (n: number): number => Math.floor(float() * n);
  return {
    next,
    float,
    int,
    pick: (xs) => xs[int(xs.length)] as (typeof xs)[number],
    chance: (p) => float() < p,
    bytes: (n) => Uint8Array.from({ length: n }, () => int(256)),
  };
}

/** mulberry32 from `seed`. */
export function mulberryRng(seed: number): Rng {
  let a = seed >>> 0;
  return scaled(() => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  });
}

/** sfc32 from `seed` (the other three words fixed), past 16 warm-up rounds. */
export function sfc32Rng(seed: number): Rng {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 16; i++) next();
  return scaled(next);
}
