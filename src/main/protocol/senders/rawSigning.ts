// The signing hash and signature of a signed transaction read straight from its consensus encoding: the unsigned
// fields are hashed as the bytes they already are (under a new list header), with no decode into field arrays, no
// re-encoding and no bigint round trip of r and s. Sender recovery does this for every transaction of every block.
//
// It answers only for input the full path (recover.ts signingData + recoverAddress) accepts: the whole encoding is
// scanned with the strict decoder's checks (canonical headers, exact lengths), and the signature values are checked
// against the same bounds. Anything else gives undefined, and the caller takes the full path, which reports it with
// its usual error.
import { keccak256 } from '../../native/keccak.js';

/** What ecdsaRecover needs: the signed digest, r‖s (64 bytes) and the recovery id. */
export interface RawSignature {
  readonly hash: Uint8Array;
  readonly sig: Uint8Array;
  readonly recid: number;
}

/** secp256k1's group order n and n/2 (EIP-2 low-s bound), big-endian. */
const N_BYTES = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
const HALF_N_BYTES = Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex');

/** Fields of each typed transaction (the last three are yParity, r, s). */
const TYPED_FIELDS: Record<number, number> = { 1: 11, 2: 12, 3: 14, 4: 13 };

/** Lists nested deeper than this are left to the full decoder (no recursion limit to reason about here). */
const MAX_DEPTH = 64;

/**
 * The end of the RLP item at `at`, which must end by `limit`, or -1 where the strict decoder (rlp.ts decodeItem)
 * would throw. Lists are scanned item by item. `fields`, when given, receives the starts of a list's items.
 */
function scan(b: Uint8Array, at: number, limit: number, depth: number, fields?: number[]): number {
  if (at >= limit) return -1;
  const first = b[at] as number;
  if (first <= 0x7f) return at + 1;
  if (first <= 0xb7) {
    const end = at + 1 + (first - 0x80);
    if (end > limit || (first === 0x81 && (b[at + 1] as number) < 0x80)) return -1;
    return end;
  }
  let start: number;
  let len: number;
  if (first <= 0xbf || first >= 0xf8) {
    const n = first - (first <= 0xbf ? 0xb7 : 0xf7);
    if (at + 1 + n > limit || (first <= 0xbf && at + 1 + n >= limit) || b[at + 1] === 0 || n > 4) return -1;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (b[at + 1 + i] as number);
    if (len < 56) return -1;
    start = at + 1 + n;
  } else {
    start = at + 1;
    len = first - 0xc0;
  }
  const end = start + len;
  if (end > limit) return -1;
  if (first <= 0xbf) return end;
  if (depth >= MAX_DEPTH) return -1;
  for (let pos = start; pos < end; ) {
    fields?.push(pos);
    pos = scan(b, pos, end, depth + 1);
    if (pos < 0) return -1;
  }
  return end;
}

/** [start, end) of the byte string at `at` (the scan already checked it), or undefined for a list. */
function bytesAt(b: Uint8Array, at: number, end: number): [number, number] | undefined {
  const first = b[at] as number;
  if (first <= 0x7f) return [at, at + 1];
  if (first <= 0xb7) return [at + 1, end];
  if (first <= 0xbf) return [at + 1 + (first - 0xb7), end];
  return undefined;
}

/** A canonical RLP integer's value bytes (no leading zero), or undefined. */
function intAt(b: Uint8Array, at: number, end: number): Uint8Array | undefined {
  const r = bytesAt(b, at, end);
  if (r === undefined || (r[1] > r[0] && b[r[0]] === 0)) return undefined;
  return b.subarray(r[0], r[1]);
}

/** A list header for a payload of `len` bytes. */
function listHeader(len: number): Uint8Array {
  if (len < 56) return Uint8Array.of(0xc0 + len);
  const digits: number[] = [];
  for (let v = len; v > 0; v = Math.floor(v / 256)) digits.unshift(v % 256);
  return Uint8Array.of(0xf7 + digits.length, ...digits);
}

/** r‖s left-padded into 64 bytes when both are in range (0 < r < n, 0 < s ≤ n/2), else undefined. */
function signature(r: Uint8Array, s: Uint8Array): Uint8Array | undefined {
  if (r.length === 0 || s.length === 0 || r.length > 32 || s.length > 32) return undefined;
  const sig = new Uint8Array(64);
  sig.set(r, 32 - r.length);
  sig.set(s, 64 - s.length);
  if (Buffer.compare(sig.subarray(0, 32), N_BYTES) >= 0 || Buffer.compare(sig.subarray(32), HALF_N_BYTES) > 0)
    return undefined;
  return sig;
}

/** keccak-256 of prefix ‖ header(len) ‖ b[from, to) ‖ suffix, where len counts the last three. */
function hashList(prefix: number | undefined, b: Uint8Array, from: number, to: number, suffix?: Uint8Array) {
  const body = to - from + (suffix?.length ?? 0);
  const header = listHeader(body);
  const p = prefix === undefined ? 0 : 1;
  const out = new Uint8Array(p + header.length + body);
  if (prefix !== undefined) out[0] = prefix;
  out.set(header, p);
  out.set(b.subarray(from, to), p + header.length);
  if (suffix !== undefined) out.set(suffix, p + header.length + (to - from));
  return keccak256(out);
}

/** The RLP string of a small non-negative integer (< 2^48). */
function encodeSmallInt(v: number): Uint8Array {
  if (v === 0) return Uint8Array.of(0x80);
  if (v < 0x80) return Uint8Array.of(v);
  const digits: number[] = [];
  for (let x = v; x > 0; x = Math.floor(x / 256)) digits.unshift(x % 256);
  return Uint8Array.of(0x80 + digits.length, ...digits);
}

/**
 * The signed digest and signature of a legacy (RLP list) or typed (1-4) transaction, or undefined when the full
 * path must decide (malformed, out-of-range or unusual input, deposits).
 */
export function rawSignature(raw: Uint8Array): RawSignature | undefined {
  if (raw.length === 0) return undefined;
  const type = raw[0] as number;
  const legacy = type >= 0xc0;
  const want = legacy ? 9 : TYPED_FIELDS[type];
  if (want === undefined) return undefined;
  const listAt = legacy ? 0 : 1;
  const fields: number[] = [];
  if (scan(raw, listAt, raw.length, 0, fields) !== raw.length || fields.length !== want) return undefined;
  if ((raw[listAt] as number) < 0xc0) return undefined;
  const end = (i: number) => (i + 1 < want ? (fields[i + 1] as number) : raw.length);
  const v = intAt(raw, fields[want - 3] as number, end(want - 3));
  const r = intAt(raw, fields[want - 2] as number, end(want - 2));
  const s = intAt(raw, fields[want - 1] as number, end(want - 1));
  if (v === undefined || r === undefined || s === undefined) return undefined;
  const sig = signature(r, s);
  if (sig === undefined || v.length > 6) return undefined;
  let vn = 0;
  for (const x of v) vn = vn * 256 + x;
  const unsignedEnd = fields[want - 3] as number;
  const bodyStart = fields[0] as number;
  if (!legacy) {
    if (vn > 1 || intAt(raw, bodyStart, end(0)) === undefined) return undefined; // chainId must be an integer
    return { hash: hashList(type, raw, bodyStart, unsignedEnd), sig, recid: vn };
  }
  if (vn === 27 || vn === 28) return { hash: hashList(undefined, raw, bodyStart, unsignedEnd), sig, recid: vn - 27 };
  if (vn < 35) return undefined;
  const chainId = Math.floor((vn - 35) / 2);
  const recid = vn - 35 - 2 * chainId;
  const chainIdRlp = encodeSmallInt(chainId);
  const suffix = new Uint8Array(chainIdRlp.length + 2);
  suffix.set(chainIdRlp, 0);
  suffix[chainIdRlp.length] = 0x80;
  suffix[chainIdRlp.length + 1] = 0x80;
  return { hash: hashList(undefined, raw, bodyStart, unsignedEnd, suffix), sig, recid };
}
