// The one owner of byte helpers: hex in and out, byte equality, minimal big-endian integers. Small and
// allocation-light: the flat state's maps call them on the execution hot path (every SLOAD/SSTORE and account
// access), and every JSON encoder of the project prints bytes through toHex.

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[97 + i] = 10 + i;
  NIBBLE[65 + i] = 10 + i;
}

/**
 * Node's native hex encoder, callable on any Uint8Array (Buffer's own method, not part of the typed API): one flat
 * string instead of a rope of 2-digit pieces that the next Map lookup would have to flatten (2-3× faster here).
 */
const hexSlice = (
  Buffer.prototype as unknown as { hexSlice?: (this: Uint8Array, start: number, end: number) => string }
).hexSlice;

/** `0x` + lowercase hex of the bytes. */
export function toHexKey(bytes: Uint8Array): string {
  if (hexSlice !== undefined) return `0x${hexSlice.call(bytes, 0, bytes.length)}`;
  let s = '0x';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i] as number];
  return s;
}

/** `0x` + lowercase hex of the bytes: the JSON-RPC DATA form. */
export function toHex(bytes: Uint8Array): `0x${string}` {
  return toHexKey(bytes) as `0x${string}`;
}

/** True when both hold the same bytes. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Bytes of a hex string with or without `0x` (an odd digit count is read with a leading zero). */
export function fromHex(hex: string): Uint8Array {
  let start = hex.startsWith('0x') || hex.startsWith('0X') ? 2 : 0;
  const digits = hex.length - start;
  const out = new Uint8Array((digits + 1) >> 1);
  let o = 0;
  if (digits & 1) out[o++] = nibble(hex, start++);
  for (; o < out.length; o++, start += 2) out[o] = (nibble(hex, start) << 4) | nibble(hex, start + 1);
  return out;
}

function nibble(s: string, i: number): number {
  const c = s.charCodeAt(i);
  const n = c < 128 ? (NIBBLE[c] as number) : -1;
  if (n < 0) throw new RangeError(`invalid hex digit ${JSON.stringify(s[i])} at ${i}`);
  return n;
}

/** Minimal big-endian bytes of a non-negative integer; empty for 0 (the EVM's storage value form). */
export function bigintToMinimalBytes(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array(0);
  if (v < 0x100n) return Uint8Array.of(Number(v));
  return fromHex(v.toString(16));
}

/** Big-endian unsigned integer of the bytes (any length, leading zeros allowed); 0n for none. */
export function bytesToBigintUnsigned(b: Uint8Array): bigint {
  const n = b.length;
  if (n === 0) return 0n;
  if (n === 1) return BigInt(b[0] as number);
  return BigInt(toHexKey(b));
}
