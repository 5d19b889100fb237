// The incremental Merkle-Patricia trie beside the flat state: nodes live in a store keyed by hash; an update loads
// only the nodes on the touched paths, rebuilds those paths as node objects, then hashes every new node exactly
// once, bottom-up, one batched keccak call per tree level (across all tries committed together).
// When the native module is loaded, applyUpdatesMany runs the same algorithm in Rust (native/src/trie_update.rs,
// through src/main/native/trie.ts), which gives the same roots and new nodes byte for byte; this JS is the fallback
// (TERN_NATIVE=0, no build, keys over 128 bytes) and the reference the native path is tested against.

import { keccak256Packed } from '../../native/keccak.js';
import { applyUpdatesNative, hasNativeTrieUpdate } from '../../native/trie.js';
import { equalBytes } from '../bytes.js';
import { TernError } from '../errors.js';
import type { NodeReader, PackedNodes, TrieUpdate, TrieUpdateResult } from './interface.js';
import {
  BRANCH,
  type Branch,
  decodeNode,
  EMBEDDED,
  EXTENSION,
  type Extension,
  encodedLength,
  fromNibbles,
  HASH,
  hashOf,
  hashRef,
  LEAF,
  type Leaf,
  type Node,
  type Ref,
  toHex,
  toNibbles,
  trieError,
  writeNode,
} from './node.js';
import { concatNodes } from './packedNodes.js';
import { EMPTY_TRIE_ROOT } from './root.js';

/** An update with its key as nibbles; value null deletes. */
interface Op {
  readonly nib: Uint8Array;
  readonly value: Uint8Array | null;
}

/** An entry of a subtree being built from scratch (value never null). */
interface Entry {
  readonly nib: Uint8Array;
  readonly value: Uint8Array;
}

export interface TrieJob {
  readonly root: Uint8Array;
  readonly updates: ReadonlyArray<TrieUpdate>;
}

const NO_NIBBLES = new Uint8Array(0);

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** How many nibbles of `path` the key's nibbles from `pos` on match. */
function matchLength(nib: Uint8Array, pos: number, path: Uint8Array): number {
  const n = Math.min(path.length, nib.length - pos);
  let i = 0;
  while (i < n && nib[pos + i] === path[i]) i++;
  return i;
}

function isNode(ref: Ref): ref is Node {
  return ref.t >= LEAF;
}

/** The first 6 bytes of a key as an exact number (zero-padded): most sort comparisons end there. */
function sortPrefix(key: Uint8Array): number {
  let v = 0;
  for (let i = 0; i < 6; i++) v = v * 256 + (key[i] ?? 0);
  return v;
}

/** Sorted by key, the later of equal keys kept, empty values turned into deletes. */
function prepare(updates: ReadonlyArray<TrieUpdate>): Op[] {
  const n = updates.length;
  const prefixes = new Float64Array(n);
  for (let i = 0; i < n; i++) prefixes[i] = sortPrefix((updates[i] as TrieUpdate)[0]);
  const order = Array.from(updates.keys());
  // Index last, so equal keys keep their input order.
  order.sort(
    (a, b) =>
      (prefixes[a] as number) - (prefixes[b] as number) ||
      compareBytes((updates[a] as TrieUpdate)[0], (updates[b] as TrieUpdate)[0]) ||
      a - b,
  );
  const ops: Op[] = [];
  for (let i = 0; i < order.length; i++) {
    const [key, value] = updates[order[i] as number] as TrieUpdate;
    const next = order[i + 1];
    if (next !== undefined && equalBytes(key, (updates[next] as TrieUpdate)[0])) continue;
    ops.push({ nib: toNibbles(key), value: value === null || value.length === 0 ? null : value });
  }
  return ops;
}

/** A Merkle-Patricia trie over a node store; stateless between calls, so one instance serves every root. */
export class MerkleTrie {
  constructor(private readonly reader: NodeReader) {}

  /**
   * Applies `updates` (any order; of equal keys the later wins; null or empty values delete) to the trie at `root`
   * and returns the new root and the nodes to persist. Reads only the nodes on the updated paths (and the sibling
   * a deletion collapses into its parent). Throws a TernError TRIE_MISSING_NODE naming the hash of a node the
   * store lacks.
   */
  applyUpdates(root: Uint8Array, updates: ReadonlyArray<TrieUpdate>): TrieUpdateResult {
    const { roots, newNodes } = this.applyUpdatesMany([{ root, updates }]);
    return { root: roots[0] as Uint8Array, newNodes };
  }

  /**
   * Applies several independent jobs (e.g. every storage trie a block touched) and hashes their new nodes together,
   * so the keccak calls are one per tree level for the lot. Roots come back in job order.
   */
  applyUpdatesMany(jobs: readonly TrieJob[]): { roots: Uint8Array[]; newNodes: PackedNodes } {
    if (hasNativeTrieUpdate) {
      const result = this.applyUpdatesManyNative(jobs);
      if (result !== undefined) return result;
    }
    return this.applyUpdatesManyJs(jobs);
  }

  /**
   * {@link applyUpdatesMany} in native code (native/src/trie_update.rs): the same roots and new nodes, in the same
   * order. Undefined when the native module is unavailable or a key is too long for it.
   */
  applyUpdatesManyNative(jobs: readonly TrieJob[]): { roots: Uint8Array[]; newNodes: PackedNodes } | undefined {
    try {
      return applyUpdatesNative(jobs, this.getNode);
    } catch (err) {
      // The native module throws plain Errors with the same codes; give callers the TernError the JS path throws.
      const code = (err as { code?: unknown } | null)?.code;
      if (!(err instanceof TernError) && (code === 'TRIE_MISSING_NODE' || code === 'TRIE_BAD_NODE')) {
        throw trieError(code, (err as Error).message);
      }
      throw err;
    }
  }

  private readonly getNode = (hash: Uint8Array): Uint8Array | undefined => this.reader.get(hash);

  /** {@link applyUpdatesMany} in JS: the fallback, and the reference the native path is tested against. */
  applyUpdatesManyJs(jobs: readonly TrieJob[]): { roots: Uint8Array[]; newNodes: PackedNodes } {
    const tops = jobs.map((job) => {
      const start: Ref | null = equalBytes(job.root, EMPTY_TRIE_ROOT) ? null : hashRef(job.root);
      const ops = prepare(job.updates);
      return ops.length === 0 ? start : this.update(start, 0, ops, 0, ops.length);
    });
    return commit(tops);
  }

  /** The value under `key` in the trie at `root`, or undefined. */
  get(root: Uint8Array, key: Uint8Array): Uint8Array | undefined {
    if (equalBytes(root, EMPTY_TRIE_ROOT)) return undefined;
    const nib = toNibbles(key);
    let ref: Ref | null = hashRef(root);
    let pos = 0;
    while (ref !== null) {
      const node = this.resolve(ref);
      if (node.t === LEAF) {
        return node.path.length === nib.length - pos && matchLength(nib, pos, node.path) === node.path.length
          ? node.value
          : undefined;
      }
      if (node.t === EXTENSION) {
        if (matchLength(nib, pos, node.path) !== node.path.length) return undefined;
        pos += node.path.length;
        ref = node.child;
      } else {
        if (pos === nib.length) return node.value ?? undefined;
        ref = node.children[nib[pos] as number] ?? null;
        pos++;
      }
    }
    return undefined;
  }

  /** Every entry of the trie at `root`, in key order. */
  *entries(root: Uint8Array): Generator<[key: Uint8Array, value: Uint8Array]> {
    if (equalBytes(root, EMPTY_TRIE_ROOT)) return;
    yield* this.walk(hashRef(root), NO_NIBBLES);
  }

  private *walk(ref: Ref, prefix: Uint8Array): Generator<[Uint8Array, Uint8Array]> {
    const node = this.resolve(ref);
    if (node.t === LEAF) {
      yield [keyOf(concat(prefix, node.path)), node.value];
    } else if (node.t === EXTENSION) {
      yield* this.walk(node.child, concat(prefix, node.path));
    } else {
      if (node.value !== null) yield [keyOf(prefix), node.value];
      for (let i = 0; i < 16; i++) {
        const child = node.children[i];
        if (child) yield* this.walk(child, concat(prefix, Uint8Array.of(i)));
      }
    }
  }

  private resolve(ref: Ref): Node {
    if (ref.t === HASH) {
      const hash = hashOf(ref);
      const rlp = this.reader.get(hash);
      if (rlp === undefined) {
        throw trieError('TRIE_MISSING_NODE', `trie node ${toHex(hash)} is missing from the node store`);
      }
      return decodeNode(rlp);
    }
    if (ref.t === EMBEDDED) return decodeNode(ref.rlp);
    return ref;
  }

  /** The subtree `ref` (whose keys share their first `pos` nibbles) after ops[lo, hi); `ref` itself if unchanged. */
  private update(ref: Ref | null, pos: number, ops: readonly Op[], lo: number, hi: number): Ref | null {
    if (ref === null) {
      const entries: Entry[] = [];
      for (let i = lo; i < hi; i++) {
        const op = ops[i] as Op;
        if (op.value !== null) entries.push({ nib: op.nib, value: op.value });
      }
      return entries.length === 0 ? null : build(entries, 0, entries.length, pos);
    }
    const node = this.resolve(ref);
    if (node.t === LEAF) return this.updateLeaf(ref, node, pos, ops, lo, hi);
    if (node.t === EXTENSION) return this.updateExtension(ref, node, pos, ops, lo, hi);
    return this.updateBranch(ref, node, pos, ops, lo, hi);
  }

  private updateLeaf(ref: Ref, leaf: Leaf, pos: number, ops: readonly Op[], lo: number, hi: number): Ref | null {
    let match = -1;
    let sets = 0;
    for (let i = lo; i < hi; i++) {
      const op = ops[i] as Op;
      if (
        match < 0 &&
        op.nib.length - pos === leaf.path.length &&
        matchLength(op.nib, pos, leaf.path) === leaf.path.length
      ) {
        match = i;
      } else if (op.value !== null) sets++;
    }
    if (sets === 0) {
      // Only the leaf's own key changes, or keys that are not there are deleted.
      if (match < 0) return ref;
      const value = (ops[match] as Op).value;
      if (value === null) return null;
      if (equalBytes(value, leaf.value)) return ref;
      return { t: LEAF, path: leaf.path, value };
    }
    // New keys beside the leaf: rebuild this subtree from the leaf's entry and the new ones.
    const leafNib = concat((ops[lo] as Op).nib.subarray(0, pos), leaf.path);
    const entries: Entry[] = [];
    let leafPending = match < 0;
    for (let i = lo; i < hi; i++) {
      const op = ops[i] as Op;
      if (leafPending && compareBytes(leafNib, op.nib) < 0) {
        entries.push({ nib: leafNib, value: leaf.value });
        leafPending = false;
      }
      if (op.value !== null) entries.push({ nib: op.nib, value: op.value });
    }
    if (leafPending) entries.push({ nib: leafNib, value: leaf.value });
    return build(entries, 0, entries.length, pos);
  }

  private updateExtension(
    ref: Ref,
    ext: Extension,
    pos: number,
    ops: readonly Op[],
    lo: number,
    hi: number,
  ): Ref | null {
    const path = ext.path;
    // Sorted keys: no key matches less of the path than the first or the last does.
    const m = Math.min(matchLength((ops[lo] as Op).nib, pos, path), matchLength((ops[hi - 1] as Op).nib, pos, path));
    if (m === path.length) return this.updateBelowExtension(ref, ext, pos, ops, lo, hi);
    let sets = false;
    for (let i = lo; i < hi && !sets; i++) sets = (ops[i] as Op).value !== null;
    if (!sets) {
      // Keys leaving the path are absent, so deleting them is a no-op; only those under the path matter.
      let a = lo;
      while (a < hi && matchLength((ops[a] as Op).nib, pos, path) < path.length) a++;
      let b = a;
      while (b < hi && matchLength((ops[b] as Op).nib, pos, path) === path.length) b++;
      return a === b ? ref : this.updateBelowExtension(ref, ext, pos, ops, a, b);
    }
    // Split the path at the first nibble some key leaves it: [path[0, m)] → branch → [path[m+1, ...)] → child.
    const children: (Ref | null)[] = new Array(16).fill(null);
    const rest = path.length - m - 1;
    children[path[m] as number] = rest > 0 ? { t: EXTENSION, path: path.subarray(m + 1), child: ext.child } : ext.child;
    const split: Branch = { t: BRANCH, children, value: null };
    const below = this.updateBranch(split, split, pos + m, ops, lo, hi);
    // Unchanged means the split branch still has one child: the old extension is still right.
    if (below === split) return ref;
    return m > 0 ? this.extend(path.subarray(0, m), below) : below;
  }

  private updateBelowExtension(
    ref: Ref,
    ext: Extension,
    pos: number,
    ops: readonly Op[],
    lo: number,
    hi: number,
  ): Ref | null {
    const child = this.update(ext.child, pos + ext.path.length, ops, lo, hi);
    return child === ext.child ? ref : this.extend(ext.path, child);
  }

  private updateBranch(ref: Ref, br: Branch, pos: number, ops: readonly Op[], lo: number, hi: number): Ref | null {
    let children = br.children;
    let value = br.value;
    let changed = false;
    let i = lo;
    // A key ending here sorts first and is the branch's own value.
    const own = ops[i] as Op;
    if (own.nib.length === pos) {
      if (own.value === null ? value !== null : value === null || !equalBytes(own.value, value)) {
        value = own.value;
        changed = true;
      }
      i++;
    }
    while (i < hi) {
      const n = (ops[i] as Op).nib[pos] as number;
      let j = i + 1;
      while (j < hi && (ops[j] as Op).nib[pos] === n) j++;
      const old = children[n] ?? null;
      const next = this.update(old, pos + 1, ops, i, j);
      if (next !== old) {
        if (children === br.children) children = children.slice();
        children[n] = next;
        changed = true;
      }
      i = j;
    }
    if (!changed) return ref;
    let count = 0;
    let only = 0;
    for (let k = 0; k < 16; k++) {
      if (children[k] !== null) {
        count++;
        only = k;
      }
    }
    if (count === 0) return value === null ? null : { t: LEAF, path: NO_NIBBLES, value };
    // A branch with one child and no value is not allowed: fold it into the child.
    if (count === 1 && value === null) return this.extend(Uint8Array.of(only), children[only] as Ref);
    return { t: BRANCH, children, value };
  }

  /** The node for `path` followed by `child`, merging paths when the child is a leaf or an extension. */
  private extend(path: Uint8Array, child: Ref | null): Ref | null {
    if (child === null) return null;
    const node = this.resolve(child);
    if (node.t === LEAF) return { t: LEAF, path: concat(path, node.path), value: node.value };
    if (node.t === EXTENSION) return { t: EXTENSION, path: concat(path, node.path), child: node.child };
    // Keep the clean reference to a branch, so it is not re-encoded.
    return { t: EXTENSION, path, child };
  }
}

function keyOf(nibbles: Uint8Array): Uint8Array {
  if (nibbles.length & 1) throw trieError('TRIE_BAD_NODE', 'a value sits at an odd number of nibbles');
  return fromNibbles(nibbles);
}

/** A new subtree holding entries[a, b) (sorted, distinct keys sharing `pos` nibbles). */
function build(entries: readonly Entry[], a: number, b: number, pos: number): Node {
  const first = entries[a] as Entry;
  if (b - a === 1) return { t: LEAF, path: first.nib.subarray(pos), value: first.value };
  const last = (entries[b - 1] as Entry).nib;
  const end = Math.min(first.nib.length, last.length);
  let d = pos;
  while (d < end && first.nib[d] === last[d]) d++;
  if (d > pos) return { t: EXTENSION, path: first.nib.subarray(pos, d), child: buildBranch(entries, a, b, d) };
  return buildBranch(entries, a, b, pos);
}

function buildBranch(entries: readonly Entry[], a: number, b: number, pos: number): Branch {
  const children: (Ref | null)[] = new Array(16).fill(null);
  let value: Uint8Array | null = null;
  let i = a;
  if ((entries[i] as Entry).nib.length === pos) value = (entries[i++] as Entry).value;
  while (i < b) {
    const n = (entries[i] as Entry).nib[pos] as number;
    let j = i + 1;
    while (j < b && (entries[j] as Entry).nib[pos] === n) j++;
    children[n] = build(entries, i, j, pos + 1);
    i = j;
  }
  return { t: BRANCH, children, value };
}

/** Hashes the new nodes under each top, deepest level first, one keccak256Packed call per level. */
function commit(tops: readonly (Ref | null)[]): { roots: Uint8Array[]; newNodes: PackedNodes } {
  const levels: Node[][] = [];
  const forced = new Set<Node>();
  const height = (node: Node): number => {
    let h = 0;
    if (node.t === EXTENSION) {
      if (isNode(node.child)) h = height(node.child) + 1;
    } else if (node.t === BRANCH) {
      for (const c of node.children) if (c !== null && isNode(c)) h = Math.max(h, height(c) + 1);
    }
    let level = levels[h];
    if (level === undefined) {
      level = [];
      levels[h] = level;
    }
    level.push(node);
    return h;
  };
  const topNodes = tops.map((top): Node | null => {
    if (top === null || top.t === HASH) return null;
    // Only reachable if an update left a root that is an embedded node: hash and persist it like any root.
    const node = top.t === EMBEDDED ? decodeNode(top.rlp) : top;
    forced.add(node);
    height(node);
    return node;
  });

  // Each level is written into one buffer, the nodes to hash first (so one keccak256Packed call covers them) and
  // the embedded ones after: a few large allocations instead of one per node, which the GC notices. The hashed part
  // of each level is kept and joined into the packed result at the end.
  const parts: PackedNodes[] = [];
  for (const level of levels) {
    if (level === undefined) continue;
    const lengths = new Uint32Array(level.length);
    let hashedTotal = 0;
    let hashedCount = 0;
    let total = 0;
    for (let k = 0; k < level.length; k++) {
      const node = level[k] as Node;
      const len = encodedLength(node);
      lengths[k] = len;
      total += len;
      if (len >= 32 || forced.has(node)) {
        hashedTotal += len;
        hashedCount++;
      }
    }
    const buf = new Uint8Array(total);
    const offsets = new Uint32Array(hashedCount + 1);
    const hashedNodes: Node[] = [];
    let hp = 0;
    let ep = hashedTotal;
    for (let k = 0; k < level.length; k++) {
      const node = level[k] as Node;
      const len = lengths[k] as number;
      if (len >= 32 || forced.has(node)) {
        offsets[hashedNodes.length] = hp;
        hashedNodes.push(node);
        hp = writeNode(node, buf, hp);
      } else {
        writeNode(node, buf, ep);
        node.ref = buf.subarray(ep, ep + len);
        ep += len;
      }
    }
    if (hashedCount === 0) continue;
    offsets[hashedCount] = hp;
    const digests = keccak256Packed(buf, offsets);
    const refs = new Uint8Array(33 * hashedCount);
    for (let h = 0; h < hashedCount; h++) {
      const ref = refs.subarray(33 * h, 33 * h + 33);
      ref[0] = 0xa0;
      for (let i = 0; i < 32; i++) ref[1 + i] = digests[32 * h + i] as number;
      (hashedNodes[h] as Node).ref = ref;
    }
    // A plain Uint8Array over the digests (native keccak gives a Buffer), like the native path's views.
    parts.push({
      hashes: new Uint8Array(digests.buffer, digests.byteOffset, digests.length),
      rlps: buf.subarray(0, hp),
      offsets,
    });
  }
  const newNodes = concatNodes(parts);

  const roots = tops.map((top, i): Uint8Array => {
    if (top === null) return EMPTY_TRIE_ROOT.slice();
    if (top.t === HASH) return hashOf(top).slice();
    return ((topNodes[i] as Node).ref as Uint8Array).slice(1);
  });
  return { roots, newNodes };
}
