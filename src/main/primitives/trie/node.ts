// In-memory trie nodes and their RLP form. Clean subtrees stay as references (a hash, or the RLP of a node
// embedded in its parent) and are decoded only when an update walks into them; node objects are what an update
// created, so they are exactly the dirty nodes the hasher must encode.
import { TernError } from '../errors.js';

export { toHex } from '../bytes.js';

export const HASH = 0;
export const EMBEDDED = 1;
export const LEAF = 2;
export const EXTENSION = 3;
export const BRANCH = 4;

/**
 * A clean node stored under its hash: bytes [at, at + 32) of `src` (usually the parent's RLP — a view per child
 * would cost more than the rest of decoding a branch).
 */
export interface HashRef {
  readonly t: typeof HASH;
  readonly src: Uint8Array;
  readonly at: number;
}

export function hashRef(hash: Uint8Array): HashRef {
  return { t: HASH, src: hash, at: 0 };
}

/** The hash a reference names (a view). */
export function hashOf(ref: HashRef): Uint8Array {
  return ref.at === 0 && ref.src.length === 32 ? ref.src : ref.src.subarray(ref.at, ref.at + 32);
}

/** A clean node shorter than 32 bytes, embedded in its parent: its RLP. */
export interface EmbeddedRef {
  readonly t: typeof EMBEDDED;
  readonly rlp: Uint8Array;
}

/** Set on dirty nodes by the hasher: how the parent refers to this node (RLP, or RLP of its hash). */
interface Hashed {
  ref?: Uint8Array;
}

/** `path`: the key nibbles left at this node, one nibble per byte. */
export interface Leaf extends Hashed {
  readonly t: typeof LEAF;
  readonly path: Uint8Array;
  readonly value: Uint8Array;
}

export interface Extension extends Hashed {
  readonly t: typeof EXTENSION;
  readonly path: Uint8Array;
  readonly child: Ref;
}

export interface Branch extends Hashed {
  readonly t: typeof BRANCH;
  /** 16 entries. */
  readonly children: (Ref | null)[];
  readonly value: Uint8Array | null;
}

export type Node = Leaf | Extension | Branch;
export type Ref = HashRef | EmbeddedRef | Node;

export function trieError(code: string, message: string): TernError {
  return new TernError(code, message);
}

// --- RLP reading: just enough to take a node apart, strict about anything a well-formed node cannot hold. The
// item just read is left in these module variables rather than in an object per item: decoding is on the hot path
// and runs on one thread at a time.

let itemList = false;
/** Where the item (header included) begins, and its payload [itemStart, itemEnd). */
let itemFrom = 0;
let itemStart = 0;
let itemEnd = 0;

function readItem(buf: Uint8Array, at: number, limit: number): void {
  if (at >= limit) throw badNode('truncated');
  const b = buf[at] as number;
  itemFrom = at;
  if (b < 0x80) {
    itemList = false;
    itemStart = at;
    itemEnd = at + 1;
    return;
  }
  itemList = b >= 0xc0;
  const short = itemList ? b - 0x40 : b;
  let len: number;
  if (short < 0xb8) {
    itemStart = at + 1;
    len = short - 0x80;
  } else {
    itemStart = at + 1 + short - 0xb7;
    if (itemStart > limit) throw badNode('truncated length');
    len = 0;
    for (let i = at + 1; i < itemStart; i++) len = len * 256 + (buf[i] as number);
  }
  itemEnd = itemStart + len;
  if (itemEnd > limit) throw badNode('item runs past its parent');
}

function badNode(why: string): TernError {
  return trieError('TRIE_BAD_NODE', `malformed trie node: ${why}`);
}

/** The string item just read. */
function currentString(rlp: Uint8Array): Uint8Array {
  if (itemList) throw badNode('expected a string, found a list');
  return rlp.subarray(itemStart, itemEnd);
}

/** The child reference just read: empty, a 32-byte hash, or an embedded node. */
function currentChild(rlp: Uint8Array): Ref | null {
  if (itemList) return { t: EMBEDDED, rlp: rlp.subarray(itemFrom, itemEnd) };
  const len = itemEnd - itemStart;
  if (len === 0) return null;
  if (len === 32) return { t: HASH, src: rlp, at: itemStart };
  throw badNode(`child reference of ${len} bytes`);
}

/** Starts reading the list that is the whole of `rlp`; returns the end of its payload (the start is itemStart). */
function openList(rlp: Uint8Array): number {
  readItem(rlp, 0, rlp.length);
  if (!itemList || itemEnd !== rlp.length) throw badNode('not a single RLP list');
  return itemEnd;
}

/** Hex-prefix decoding: the nibbles and whether the path ends in a leaf. */
function decodePath(compact: Uint8Array): { path: Uint8Array; leaf: boolean } {
  const first = compact[0];
  if (first === undefined) throw badNode('empty path');
  const flag = first >> 4;
  if (flag > 3) throw badNode(`path flag ${flag}`);
  const odd = flag & 1;
  const path = new Uint8Array((compact.length - 1) * 2 + odd);
  let j = 0;
  if (odd) path[j++] = first & 0x0f;
  for (let i = 1; i < compact.length; i++) {
    const b = compact[i] as number;
    path[j++] = b >> 4;
    path[j++] = b & 0x0f;
  }
  return { path, leaf: flag >= 2 };
}

/** Decodes a node's RLP. Views into `rlp` are kept, not copied. */
export function decodeNode(rlp: Uint8Array): Node {
  const end = openList(rlp);
  readItem(rlp, itemStart, end);
  const first = itemEnd;
  const firstList = itemList;
  const firstStart = itemStart;
  readItem(rlp, first, end);
  if (itemEnd === end) {
    if (firstList) throw badNode('path is a list');
    const { path, leaf } = decodePath(rlp.subarray(firstStart, first));
    if (leaf) return { t: LEAF, path, value: currentString(rlp) };
    const child = currentChild(rlp);
    if (child === null) throw badNode('extension without a child');
    return { t: EXTENSION, path, child };
  }
  // A branch: 16 children and a value. Re-read from the first item.
  const children: (Ref | null)[] = new Array(16);
  openList(rlp);
  let at = itemStart;
  for (let i = 0; i < 16; i++) {
    readItem(rlp, at, end);
    children[i] = currentChild(rlp);
    at = itemEnd;
  }
  readItem(rlp, at, end);
  if (itemEnd !== end) throw badNode('list of more than 17 items');
  const value = currentString(rlp);
  return { t: BRANCH, children, value: value.length === 0 ? null : value };
}

// --- RLP writing (the trie's one RLP writer; root.ts builds ordered-trie nodes with it too).

/** Bytes of the RLP header for a payload of `len` bytes. */
export function headerLength(len: number): number {
  if (len < 56) return 1;
  let n = 1;
  for (let l = len; l > 0xff; l = Math.floor(l / 256)) n++;
  return 1 + n;
}

/** Writes the RLP header of a string (`base` 0x80) or list (0xc0) payload of `len` bytes; returns the next index. */
export function writeHeader(out: Uint8Array, at: number, len: number, base: number): number {
  if (len < 56) {
    out[at] = base + len;
    return at + 1;
  }
  const n = headerLength(len) - 1;
  out[at] = base + 55 + n;
  for (let i = n, l = len; i >= 1; i--, l = Math.floor(l / 256)) out[at + i] = l & 0xff;
  return at + 1 + n;
}

/** Bytes of the RLP string holding `b`. */
export function stringLength(b: Uint8Array): number {
  return b.length === 1 && (b[0] as number) < 0x80 ? 1 : headerLength(b.length) + b.length;
}

/** Writes `b` as an RLP string; returns the next index. */
export function writeString(out: Uint8Array, at: number, b: Uint8Array): number {
  if (b.length === 1 && (b[0] as number) < 0x80) {
    out[at] = b[0] as number;
    return at + 1;
  }
  const p = writeHeader(out, at, b.length, 0x80);
  out.set(b, p);
  return p + b.length;
}

/** RLP of the empty string: an absent child or value. */
export const EMPTY_STRING = 0x80;

/** Length of the RLP string holding the hex-prefix encoding of a path of `n` nibbles. */
function compactLength(n: number): number {
  const bytes = (n >> 1) + 1;
  return bytes === 1 ? 1 : headerLength(bytes) + bytes;
}

/** Writes the hex-prefix (compact) encoding of a nibble path as an RLP string; returns the next index. */
function writeCompact(out: Uint8Array, at: number, path: Uint8Array, leaf: boolean): number {
  const odd = path.length & 1;
  const bytes = (path.length >> 1) + 1;
  // The flag byte is below 0x80, so a one-byte path is its own encoding.
  let p = bytes === 1 ? at : writeHeader(out, at, bytes, 0x80);
  let i = 0;
  out[p++] = (((leaf ? 2 : 0) | odd) << 4) | (odd ? (path[i++] as number) : 0);
  for (; i < path.length; i += 2) out[p++] = ((path[i] as number) << 4) | (path[i + 1] as number);
  return p;
}

/** Length of how a parent refers to a child: RLP of its hash, its embedded RLP, or the hasher's result. */
function childRefLength(ref: Ref | null): number {
  if (ref === null) return 1;
  if (ref.t === HASH) return 33;
  if (ref.t === EMBEDDED) return ref.rlp.length;
  if (ref.ref === undefined) throw trieError('TRIE_INTERNAL', 'child encoded before it was hashed');
  return ref.ref.length;
}

function writeChildRef(out: Uint8Array, at: number, ref: Ref | null): number {
  if (ref === null) {
    out[at] = EMPTY_STRING;
    return at + 1;
  }
  if (ref.t === HASH) {
    out[at] = 0xa0;
    const src = ref.src;
    for (let i = 0, j = ref.at; i < 32; i++, j++) out[at + 1 + i] = src[j] as number;
    return at + 33;
  }
  const bytes = ref.t === EMBEDDED ? ref.rlp : (ref.ref as Uint8Array);
  out.set(bytes, at);
  return at + bytes.length;
}

function payloadLength(node: Node): number {
  if (node.t === BRANCH) {
    const children = node.children;
    let payload = node.value === null ? 1 : stringLength(node.value);
    for (let i = 0; i < 16; i++) payload += childRefLength(children[i] ?? null);
    return payload;
  }
  const second = node.t === LEAF ? stringLength(node.value) : childRefLength(node.child);
  return compactLength(node.path.length) + second;
}

/** Length of a dirty node's RLP; its dirty children must have been hashed already. */
export function encodedLength(node: Node): number {
  const payload = payloadLength(node);
  return headerLength(payload) + payload;
}

/** Writes a dirty node's RLP at `out[at]` (room for {@link encodedLength} bytes); returns the next index. */
export function writeNode(node: Node, out: Uint8Array, at: number): number {
  let p = writeHeader(out, at, payloadLength(node), 0xc0);
  if (node.t === BRANCH) {
    for (let i = 0; i < 16; i++) p = writeChildRef(out, p, node.children[i] ?? null);
    if (node.value === null) {
      out[p] = EMPTY_STRING;
      return p + 1;
    }
    return writeString(out, p, node.value);
  }
  const leaf = node.t === LEAF;
  p = writeCompact(out, p, node.path, leaf);
  return leaf ? writeString(out, p, node.value) : writeChildRef(out, p, node.child);
}

/** Key bytes as nibbles, one per byte. */
export function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    const b = key[i] as number;
    out[2 * i] = b >> 4;
    out[2 * i + 1] = b & 0x0f;
  }
  return out;
}

/** Nibbles (an even number) back to key bytes. */
export function fromNibbles(nibbles: Uint8Array): Uint8Array {
  const out = new Uint8Array(nibbles.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = ((nibbles[2 * i] as number) << 4) | (nibbles[2 * i + 1] as number);
  return out;
}

/** RLP of a list of byte strings (an account: nonce, balance, storage root, code hash). */
export function encodeStringList(items: readonly Uint8Array[]): Uint8Array {
  let payload = 0;
  for (const it of items) payload += stringLength(it);
  const out = new Uint8Array(headerLength(payload) + payload);
  let p = writeHeader(out, 0, payload, 0xc0);
  for (const it of items) p = writeString(out, p, it);
  return out;
}

/** The byte strings of an RLP list of strings. */
export function decodeStringList(rlp: Uint8Array): Uint8Array[] {
  const end = openList(rlp);
  const out: Uint8Array[] = [];
  for (let at = itemStart; at < end; at = itemEnd) {
    readItem(rlp, at, end);
    out.push(currentString(rlp));
  }
  return out;
}
