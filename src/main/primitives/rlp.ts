// RLP: tern's encoder (one buffer, lengths first) and strict decoder (canonical-form checks included: no leading
// zeros in lengths, no single byte below 0x80 wrapped in a string header, no trailing bytes), both byte for byte
// what @ethereumjs/rlp does, plus the integer helpers every structure here needs.
import { RLP } from '@ethereumjs/rlp';
import { toHexKey } from './bytes.js';
import { TernError } from './errors.js';

export type RlpInput = Uint8Array | bigint | number | string | RlpInput[] | null | undefined;
export type RlpDecoded = Uint8Array | RlpDecoded[];

/**
 * Encodes in two passes into one buffer (lengths first, then the bytes), where @ethereumjs/rlp concatenates a new
 * array per item and per list: receipts and transactions are encoded for every block. Byte for byte the same output.
 */
export function rlpEncode(input: RlpInput): Uint8Array {
  const plan: EncodePlan = { lists: [], scalars: [], li: 0, si: 0 };
  const out = new Uint8Array(measure(input, plan));
  write(input, plan, out, 0);
  return out;
}

/** `type` followed by the RLP of `input`, in one buffer: an EIP-2718 typed envelope (receipts, transactions). */
export function rlpEncodeTyped(type: number, input: RlpInput): Uint8Array {
  const plan: EncodePlan = { lists: [], scalars: [], li: 0, si: 0 };
  const out = new Uint8Array(1 + measure(input, plan));
  out[0] = type;
  write(input, plan, out, 1);
  return out;
}

interface EncodePlan {
  /** Payload length of each list, in pre-order. */
  lists: number[];
  /** Bytes of each scalar, in pre-order. */
  scalars: Uint8Array[];
  li: number;
  si: number;
}

const EMPTY_BYTES = new Uint8Array(0);

/** A scalar's bytes as @ethereumjs/rlp reads them; unusual inputs (strings, negatives, fractions) go through it. */
function scalarBytes(v: Exclude<RlpInput, RlpInput[]>): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'bigint' && v >= 0n) return bigintToBytes(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return safeIntegerToBytes(v);
  if (v === null || v === undefined) return EMPTY_BYTES;
  const encoded = RLP.encode(v);
  return RLP.decode(encoded) as Uint8Array;
}

function lengthOfLength(n: number): number {
  let k = 0;
  while (n > 0) {
    k++;
    n = Math.floor(n / 256);
  }
  return k;
}

function headerLength(payload: number): number {
  return payload < 56 ? 1 : 1 + lengthOfLength(payload);
}

function measure(item: RlpInput, plan: EncodePlan): number {
  if (Array.isArray(item)) {
    const at = plan.lists.length;
    plan.lists.push(0);
    let payload = 0;
    for (let i = 0; i < item.length; i++) payload += measure(item[i], plan);
    plan.lists[at] = payload;
    return headerLength(payload) + payload;
  }
  const b = scalarBytes(item);
  plan.scalars.push(b);
  if (b.length === 1 && (b[0] as number) < 0x80) return 1;
  return headerLength(b.length) + b.length;
}

function writeHeader(out: Uint8Array, pos: number, payload: number, offset: number): number {
  if (payload < 56) {
    out[pos] = offset + payload;
    return pos + 1;
  }
  const k = lengthOfLength(payload);
  out[pos] = offset + 55 + k;
  for (let i = k; i >= 1; i--) {
    out[pos + i] = payload % 256;
    payload = Math.floor(payload / 256);
  }
  return pos + 1 + k;
}

function write(item: RlpInput, plan: EncodePlan, out: Uint8Array, pos: number): number {
  if (Array.isArray(item)) {
    pos = writeHeader(out, pos, plan.lists[plan.li++] as number, 0xc0);
    for (let i = 0; i < item.length; i++) pos = write(item[i], plan, out, pos);
    return pos;
  }
  const b = plan.scalars[plan.si++] as Uint8Array;
  if (b.length === 1 && (b[0] as number) < 0x80) {
    out[pos] = b[0] as number;
    return pos + 1;
  }
  pos = writeHeader(out, pos, b.length, 0x80);
  out.set(b, pos);
  return pos + b.length;
}

/**
 * Decodes one complete RLP item; throws TernError RLP_INVALID on any malformed or non-canonical input. Accepts and
 * rejects exactly what @ethereumjs/rlp's decode does (tested against it), reading positions instead of cutting a
 * remainder array per item; byte strings come back as copies, never views of `data`.
 */
export function rlpDecode(data: Uint8Array): RlpDecoded {
  if (data.length === 0) throw invalidRlp('empty input');
  const cursor = { pos: 0 };
  let item: RlpDecoded;
  try {
    item = decodeItem(data, cursor, data.length);
  } catch (err) {
    // Lists nested deeper than the stack allows are bad input too, not a crash.
    if (err instanceof TernError) throw err;
    throw invalidRlp(err instanceof Error ? err.message : String(err));
  }
  if (cursor.pos !== data.length) throw invalidRlp('remainder must be zero');
  return item;
}

function invalidRlp(why: string): TernError {
  return new TernError('RLP_INVALID', `invalid RLP: ${why}`);
}

const copyBytes = (data: Uint8Array, from: number, to: number): Uint8Array =>
  Uint8Array.prototype.slice.call(data, from, to);

/** A big-endian length of `n` bytes at `at`: canonical (no leading zero). */
function readLength(data: Uint8Array, at: number, n: number): number {
  if (data[at] === 0) throw invalidRlp('extra zeros');
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + (data[at + i] as number);
  return len;
}

/** The item at `cursor.pos`, which must end by `limit`; moves the cursor past it. */
function decodeItem(data: Uint8Array, cursor: { pos: number }, limit: number): RlpDecoded {
  const at = cursor.pos;
  const first = data[at] as number;
  if (first <= 0x7f) {
    cursor.pos = at + 1;
    return copyBytes(data, at, at + 1);
  }
  if (first <= 0xb7) {
    const end = at + 1 + (first - 0x80);
    if (end > limit) throw invalidRlp('string runs past its end');
    if (first === 0x81 && (data[at + 1] as number) < 0x80) {
      throw invalidRlp('single byte < 0x80 must not be prefixed');
    }
    cursor.pos = end;
    return copyBytes(data, at + 1, end);
  }
  if (first <= 0xbf) {
    const n = first - 0xb7;
    if (at + 1 + n >= limit) throw invalidRlp('not enough bytes for string length');
    const len = readLength(data, at + 1, n);
    if (len <= 55) throw invalidRlp('expected string length to be greater than 55');
    const start = at + 1 + n;
    if (start + len > limit) throw invalidRlp('string runs past its end');
    cursor.pos = start + len;
    return copyBytes(data, start, start + len);
  }
  let start: number;
  let end: number;
  if (first <= 0xf7) {
    start = at + 1;
    end = start + (first - 0xc0);
  } else {
    const n = first - 0xf7;
    if (at + 1 + n > limit) throw invalidRlp('not enough bytes for list length');
    const len = readLength(data, at + 1, n);
    if (len < 56) throw invalidRlp('encoded list too short');
    start = at + 1 + n;
    end = start + len;
  }
  if (end > limit) throw invalidRlp('list runs past its end');
  const items: RlpDecoded[] = [];
  cursor.pos = start;
  while (cursor.pos < end) items.push(decodeItem(data, cursor, end));
  return items;
}

/** Minimal big-endian bytes of a non-negative integer (0 → empty), as RLP and the state trie store integers. */
export function bigintToBytes(n: bigint): Uint8Array {
  if (n < 0n) throw new RangeError('negative integer');
  if (n === 0n) return new Uint8Array(0);
  // Nonces, gas figures and most values fit a double: no hex string on that path.
  if (n <= MAX_SAFE) return safeIntegerToBytes(Number(n));
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Minimal big-endian bytes of a non-negative safe integer (0 → empty). */
function safeIntegerToBytes(n: number): Uint8Array {
  let len = 0;
  for (let m = n; m > 0; m = Math.floor(m / 256)) len++;
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; i--) {
    out[i] = n % 256;
    n = Math.floor(n / 256);
  }
  return out;
}

/** Reads an RLP integer: big-endian, no leading zero byte (canonical), empty = 0. */
export function bytesToBigint(bytes: Uint8Array, what = 'integer'): bigint {
  if (!(bytes instanceof Uint8Array)) throw new TernError('RLP_INVALID', `${what}: expected bytes, got a list`);
  if (bytes.length === 0) return 0n;
  if (bytes[0] === 0) throw new TernError('RLP_INVALID', `${what}: leading zero byte`);
  // Up to 6 bytes (nonces, gas, most fees) fit a double exactly: no hex string, no copy.
  if (bytes.length <= 6) {
    let n = 0;
    for (let i = 0; i < bytes.length; i++) n = n * 256 + (bytes[i] as number);
    return BigInt(n);
  }
  return BigInt(toHexKey(bytes));
}

export function asBytes(item: RlpDecoded | undefined, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new TernError('RLP_INVALID', `${what}: expected bytes`);
  return item;
}

export function asList(item: RlpDecoded | undefined, what: string): RlpDecoded[] {
  if (!Array.isArray(item)) throw new TernError('RLP_INVALID', `${what}: expected a list`);
  return item;
}
