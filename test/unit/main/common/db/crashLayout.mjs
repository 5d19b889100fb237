// The key layout of the kill -9 test, shared by crashChild.mjs (the writer) and crash.test.ts (the checker).

const enc = new TextEncoder();

export const LAST = enc.encode('last');

export function key(s) {
  return enc.encode(s);
}

export function encodeN(n) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

export function decodeN(b) {
  return Number(new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0));
}

/** Keys in batch n: 3 to 9. */
export function keysIn(n) {
  return 3 + (n % 7);
}

/** Value size of key i of batch n: mostly small, sometimes past a page, now and then an overflow run of pages. */
export function sizeOf(n, i) {
  const r = (n * 131 + i * 31) % 97;
  if (r === 0) return 300_000;
  if (r < 10) return 9_000;
  if (r < 40) return 1_500;
  return 40;
}

export function batchValue(n, i) {
  const v = new Uint8Array(sizeOf(n, i));
  const seed = (n * 2654435761 + i * 40503) >>> 0;
  for (let k = 0; k < v.length; k++) v[k] = (seed >>> (8 * (k & 3))) ^ (k & 0xff);
  v.set(encodeN(n).subarray(4), 0);
  return v;
}
