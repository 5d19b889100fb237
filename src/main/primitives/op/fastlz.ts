// The length FastLZ (level 1) would compress data to, without producing the output: Fjord's L1-cost estimate
// and Jovian's DA footprint use it. The same algorithm as the spec's reference (solady's LibZip.flzCompress
// length walk, as op-geth's FlzCompressLen): 13-bit hash of 3-byte windows, matches within 8191 bytes.
const HASH_LOG = 13;
const HASH_MASK = (1 << HASH_LOG) - 1;
const MAX_DISTANCE = 0x1fff;

export function flzCompressLen(ib: Uint8Array): number {
  let n = 0;
  const ht = new Uint32Array(1 << HASH_LOG);
  const u24 = (i: number) => (ib[i] as number) | ((ib[i + 1] as number) << 8) | ((ib[i + 2] as number) << 16);
  // 2654435769 = 2^32 / golden ratio; Math.imul keeps the product in 32 bits like the Go uint32 arithmetic.
  const hash = (v: number) => (Math.imul(2654435769, v) >>> 19) & HASH_MASK;
  const literals = (r: number) => {
    n += 0x21 * Math.floor(r / 0x20);
    const rest = r % 0x20;
    if (rest !== 0) n += rest + 1;
  };
  const match = (len: number) => {
    const l = len - 1;
    n += 3 * Math.floor(l / 262);
    n += l % 262 >= 6 ? 3 : 2;
  };
  // Length of the common run of ib[p..] and ib[q..], stopping at index e (exclusive) of q; counts one past a
  // mismatch, as the reference does.
  const cmp = (p: number, q: number, end: number) => {
    let l = 0;
    let e = end - q;
    for (; l < e; l++) if (ib[p + l] !== ib[q + l]) e = 0;
    return l;
  };
  const setNextHash = (ip: number) => {
    ht[hash(u24(ip))] = ip;
    return ip + 1;
  };

  let a = 0;
  const ipLimit = ib.length < 13 ? 0 : ib.length - 13;
  for (let ip = a + 2; ip < ipLimit; ) {
    let r = 0;
    for (;;) {
      const s = u24(ip);
      const h = hash(s);
      r = ht[h] as number;
      ht[h] = ip;
      const d = ip - r;
      if (ip >= ipLimit) break;
      ip++;
      if (d <= MAX_DISTANCE && s === u24(r)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > a) literals(ip - a);
    const l = cmp(r + 3, ip + 3, ipLimit + 9);
    match(l);
    ip = setNextHash(setNextHash(ip + l));
    a = ip;
  }
  literals(ib.length - a);
  return n;
}
