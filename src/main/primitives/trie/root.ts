// Merkle-Patricia trie roots of a complete key set (yellow paper, appendix D), built in one pass over the sorted
// keys: no node objects, each node is encoded and hashed (or embedded, when its RLP is under 32 bytes) as soon as
// its children are. The native module does the same in Rust; the JS twins are exported for tests and benchmarks.
import { nativeFunction } from '../../native/index.js';
import { keccak256, keccak256Batch, packInputs } from '../../native/keccak.js';
import { EMPTY_STRING, headerLength, stringLength, writeHeader, writeString } from './node.js';

const MAX_OFFSET = 0xffff_ffff;

/** A trie entry: raw key and value. An empty value means the key is absent. */
export type TrieEntry = readonly [key: Uint8Array, value: Uint8Array];

/** keccak-256 of RLP("") (0x80): the root of the empty trie. */
export const EMPTY_TRIE_ROOT: Uint8Array = Uint8Array.from(
  Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex'),
);

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function nibble(key: Uint8Array, i: number): number {
  const b = key[i >> 1] as number;
  return i & 1 ? b & 0x0f : b >> 4;
}

/** Hex-prefix (compact) encoding of key nibbles [from, to), flagged as a leaf or an extension path. */
function compactPath(key: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const n = to - from;
  const odd = n & 1;
  const out = new Uint8Array((n >> 1) + 1);
  let i = from;
  out[0] = ((leaf ? 2 : 0) | odd) << 4;
  if (odd) out[0] |= nibble(key, i++);
  for (let j = 1; i < to; j++, i += 2) out[j] = (nibble(key, i) << 4) | nibble(key, i + 1);
  return out;
}

/** RLP list of two items: a leaf (path, value), or an extension (path, child reference already in RLP). */
function encodePair(path: Uint8Array, second: Uint8Array, secondIsRef: boolean): Uint8Array {
  const secondLen = secondIsRef ? second.length : stringLength(second);
  const payload = stringLength(path) + secondLen;
  const out = new Uint8Array(headerLength(payload) + payload);
  let p = writeHeader(out, 0, payload, 0xc0);
  p = writeString(out, p, path);
  if (secondIsRef) out.set(second, p);
  else writeString(out, p, second);
  return out;
}

class Builder {
  constructor(
    private readonly keys: readonly Uint8Array[],
    private readonly values: readonly Uint8Array[],
    private readonly hash: (data: Uint8Array) => Uint8Array,
  ) {}

  /** How a parent refers to a node: its RLP when shorter than 32 bytes, else RLP of its hash. */
  private ref(encoded: Uint8Array): Uint8Array {
    if (encoded.length < 32) return encoded;
    const out = new Uint8Array(33);
    out[0] = 0xa0;
    out.set(this.hash(encoded), 1);
    return out;
  }

  /** RLP of the node holding keys[lo, hi), all of which share their first `depth` nibbles. */
  node(lo: number, hi: number, depth: number): Uint8Array {
    const first = this.keys[lo] as Uint8Array;
    if (hi - lo === 1) {
      return encodePair(compactPath(first, depth, first.length * 2, true), this.values[lo] as Uint8Array, false);
    }
    // Sorted keys: what the first and last share, all share.
    const last = this.keys[hi - 1] as Uint8Array;
    const end = Math.min(first.length, last.length) * 2;
    let d = depth;
    while (d < end && nibble(first, d) === nibble(last, d)) d++;
    if (d === depth) return this.branch(lo, hi, depth);
    return encodePair(compactPath(first, depth, d, false), this.ref(this.branch(lo, hi, d)), true);
  }

  private branch(lo: number, hi: number, depth: number): Uint8Array {
    const refs: (Uint8Array | undefined)[] = new Array(16);
    let value: Uint8Array | undefined;
    let i = lo;
    // A key ending here sorts before every longer key under it.
    if ((this.keys[i] as Uint8Array).length * 2 === depth) value = this.values[i++];
    let payload = 0;
    while (i < hi) {
      const n = nibble(this.keys[i] as Uint8Array, depth);
      let j = i + 1;
      while (j < hi && nibble(this.keys[j] as Uint8Array, depth) === n) j++;
      const r = this.ref(this.node(i, j, depth + 1));
      refs[n] = r;
      payload += r.length;
      i = j;
    }
    for (const r of refs) if (r === undefined) payload += 1;
    payload += value === undefined ? 1 : stringLength(value);
    const out = new Uint8Array(headerLength(payload) + payload);
    let p = writeHeader(out, 0, payload, 0xc0);
    for (let k = 0; k < 16; k++) {
      const r = refs[k];
      if (r === undefined) out[p++] = EMPTY_STRING;
      else {
        out.set(r, p);
        p += r.length;
      }
    }
    if (value === undefined) out[p] = EMPTY_STRING;
    else writeString(out, p, value);
    return out;
  }
}

/**
 * Root of the trie over parallel key/value arrays: sorted by key, duplicates resolved in favour of the later
 * entry, empty values dropped. `hash` is keccak-256 (a parameter so benchmarks can run the all-JS path).
 */
export function trieRootOf(
  keys: readonly Uint8Array[],
  values: readonly Uint8Array[],
  hash: (data: Uint8Array) => Uint8Array = keccak256,
): Uint8Array {
  // The first 6 bytes as an exact number settle most comparisons; the index last keeps equal keys in input order.
  const prefixes = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as Uint8Array;
    let v = 0;
    for (let j = 0; j < 6; j++) v = v * 256 + (key[j] ?? 0);
    prefixes[i] = v;
  }
  const order = Array.from(keys.keys());
  order.sort(
    (a, b) =>
      (prefixes[a] as number) - (prefixes[b] as number) ||
      compareBytes(keys[a] as Uint8Array, keys[b] as Uint8Array) ||
      a - b,
  );
  const sortedKeys: Uint8Array[] = [];
  const sortedValues: Uint8Array[] = [];
  for (let i = 0; i < order.length; i++) {
    const at = order[i] as number;
    const next = order[i + 1];
    if (next !== undefined && compareBytes(keys[at] as Uint8Array, keys[next] as Uint8Array) === 0) continue;
    const value = values[at] as Uint8Array;
    if (value.length === 0) continue;
    sortedKeys.push(keys[at] as Uint8Array);
    sortedValues.push(value);
  }
  if (sortedKeys.length === 0) return EMPTY_TRIE_ROOT.slice();
  // The root is hashed whatever its length.
  return hash(new Builder(sortedKeys, sortedValues, hash).node(0, sortedKeys.length, 0));
}

/** RLP of a transaction/receipt index, the key of the ordered tries. */
export function indexKey(i: number): Uint8Array {
  if (i === 0) return Uint8Array.of(EMPTY_STRING);
  if (i < 0x80) return Uint8Array.of(i);
  const bytes: number[] = [];
  for (let v = i; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Uint8Array.from([0x80 + bytes.length, ...bytes]);
}

/** {@link trieRoot} in JS. */
export function trieRootJs(entries: ReadonlyArray<TrieEntry>): Uint8Array {
  return trieRootOf(
    entries.map((e) => e[0]),
    entries.map((e) => e[1]),
  );
}

/** {@link secureTrieRoot} in JS (the keys are still hashed in one batch, natively when the module loaded). */
export function secureTrieRootJs(entries: ReadonlyArray<TrieEntry>): Uint8Array {
  const digests = keccak256Batch(entries.map((e) => e[0]));
  const keys = entries.map((_, i) => digests.subarray(32 * i, 32 * i + 32));
  return trieRootOf(
    keys,
    entries.map((e) => e[1]),
  );
}

/** {@link orderedTrieRoot} in JS. */
export function orderedTrieRootJs(values: readonly Uint8Array[]): Uint8Array {
  return trieRootOf(
    values.map((_, i) => indexKey(i)),
    values,
  );
}

/** Longest raw key the native trieRoot takes (it bounds its recursion depth); longer keys use the JS builder. */
const NATIVE_MAX_KEY_LEN = 256;

interface PackedEntries {
  /** Length of the longest key. */
  maxKey: number;
  keys: Uint8Array;
  keyOffsets: Uint32Array;
  values: Uint8Array;
  valueOffsets: Uint32Array;
}

/** Keys and values packed for the native call in one pass each, without intermediate arrays. */
function packEntries(entries: ReadonlyArray<TrieEntry>): PackedEntries {
  const n = entries.length;
  const keyOffsets = new Uint32Array(n + 1);
  const valueOffsets = new Uint32Array(n + 1);
  let k = 0;
  let v = 0;
  let maxKey = 0;
  for (let i = 0; i < n; i++) {
    const e = entries[i] as TrieEntry;
    keyOffsets[i] = k;
    valueOffsets[i] = v;
    k += e[0].length;
    v += e[1].length;
    if (e[0].length > maxKey) maxKey = e[0].length;
  }
  if (k > MAX_OFFSET || v > MAX_OFFSET) throw new RangeError('trie entries exceed 4 GiB, the reach of Uint32 offsets');
  keyOffsets[n] = k;
  valueOffsets[n] = v;
  const keys = new Uint8Array(k);
  const values = new Uint8Array(v);
  for (let i = 0; i < n; i++) {
    const e = entries[i] as TrieEntry;
    keys.set(e[0], keyOffsets[i] as number);
    values.set(e[1], valueOffsets[i] as number);
  }
  return { maxKey, keys, keyOffsets, values, valueOffsets };
}

const nativeTrieRoot = nativeFunction('trieRoot');
const nativeSecureTrieRoot = nativeFunction('secureTrieRoot');
const nativeOrderedTrieRoot = nativeFunction('orderedTrieRoot');

/**
 * Root of the trie holding exactly these raw keys, in any order; for a repeated key the last entry wins, and an
 * empty value means absent.
 */
export function trieRoot(entries: ReadonlyArray<TrieEntry>): Uint8Array {
  if (nativeTrieRoot === undefined) return trieRootJs(entries);
  const p = packEntries(entries);
  if (p.maxKey > NATIVE_MAX_KEY_LEN) return trieRootJs(entries);
  return nativeTrieRoot(p.keys, p.keyOffsets, p.values, p.valueOffsets);
}

/**
 * Root of the secure trie: as {@link trieRoot} with each key replaced by its keccak-256 (the state trie: address →
 * RLP account; a storage trie: 32-byte slot → RLP of the minimal big-endian value).
 */
export function secureTrieRoot(entries: ReadonlyArray<TrieEntry>): Uint8Array {
  if (nativeSecureTrieRoot === undefined) return secureTrieRootJs(entries);
  const p = packEntries(entries);
  return nativeSecureTrieRoot(p.keys, p.keyOffsets, p.values, p.valueOffsets);
}

/** Root of the transactions/receipts/withdrawals trie: value i under key RLP(i). */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (nativeOrderedTrieRoot === undefined) return orderedTrieRootJs(values);
  const packed = packInputs(values);
  return nativeOrderedTrieRoot(packed.data, packed.offsets);
}
