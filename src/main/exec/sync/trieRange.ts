// Walking a stored trie in key order from a starting key (the leaves of a secure trie come out in hashed-key order,
// the order snap/1 ranges are served in), and reading the node at a path (snap/1 GetTrieNodes).
import { TernError } from '../../common/errors.js';
import type { NodeReader } from '../../primitives/trie/interface.js';
import {
  BRANCH,
  decodeNode,
  EMBEDDED,
  EXTENSION,
  fromNibbles,
  HASH,
  hashOf,
  hashRef,
  LEAF,
  type Node,
  type Ref,
  toNibbles,
} from '../../primitives/trie/node.js';

function resolve(nodes: NodeReader, ref: Ref): Node {
  if (ref.t === HASH) {
    const hash = hashOf(ref);
    const rlp = nodes.get(hash);
    if (rlp === undefined)
      throw new TernError('TRIE_MISSING_NODE', `missing trie node ${Buffer.from(hash).toString('hex')}`);
    return decodeNode(rlp);
  }
  if (ref.t === EMBEDDED) return decodeNode(ref.rlp);
  return ref;
}

/** -1, 0, 1: `path` against `start` from position `at` (as far as `path` goes). */
function comparePath(path: Uint8Array, start: Uint8Array, at: number): number {
  for (let i = 0; i < path.length; i++) {
    const a = path[i] as number;
    const b = start[at + i] as number;
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

/** The leaves of the trie at `root` with keys ≥ `origin` (32 bytes), in key order: [key, value]. */
export function* leavesFrom(
  nodes: NodeReader,
  root: Uint8Array,
  origin: Uint8Array,
): Generator<[key: Uint8Array, value: Uint8Array]> {
  const start = toNibbles(origin);
  // `bounded`: the path so far equals the origin's prefix, so smaller keys below must be skipped.
  function* walk(ref: Ref, prefix: number[], bounded: boolean): Generator<[Uint8Array, Uint8Array]> {
    const node = resolve(nodes, ref);
    if (node.t === LEAF) {
      const full = Uint8Array.from([...prefix, ...node.path]);
      if (bounded && comparePath(full.subarray(prefix.length), start, prefix.length) < 0) return;
      yield [fromNibbles(full), node.value];
      return;
    }
    if (node.t === EXTENSION) {
      let inside = bounded;
      if (bounded) {
        const c = comparePath(node.path, start, prefix.length);
        if (c < 0) return;
        inside = c === 0;
      }
      yield* walk(node.child, [...prefix, ...node.path], inside);
      return;
    }
    if (node.t === BRANCH) {
      const first = bounded ? (start[prefix.length] as number) : 0;
      for (let i = first; i < 16; i++) {
        const child = node.children[i];
        if (child === null || child === undefined) continue;
        yield* walk(child, [...prefix, i], bounded && i === first);
      }
    }
  }
  yield* walk(hashRef(root), [], true);
}

/**
 * The RLP of the node at nibble path `path` of the trie at `root` (snap/1 GetTrieNodes), or undefined when no
 * stored node sits exactly there (the path ends inside a node, leaves the trie, or names an embedded node).
 */
export function nodeAtPath(nodes: NodeReader, root: Uint8Array, path: Uint8Array): Uint8Array | undefined {
  let ref: Ref = hashRef(root);
  let pos = 0;
  for (;;) {
    if (pos === path.length) return ref.t === HASH ? nodes.get(hashOf(ref)) : undefined;
    const node = resolve(nodes, ref);
    if (node.t === LEAF) return undefined;
    if (node.t === EXTENSION) {
      if (pos + node.path.length > path.length || comparePath(node.path, path, pos) !== 0) return undefined;
      pos += node.path.length;
      ref = node.child;
    } else {
      const child = node.children[path[pos] as number];
      if (child === null || child === undefined) return undefined;
      pos++;
      ref = child;
    }
  }
}

/** Nibbles of a hex-prefix (compact) encoded path, as snap/1 GetTrieNodes sends them. */
export function compactToNibbles(compact: Uint8Array): Uint8Array {
  if (compact.length === 0) return new Uint8Array(0);
  const flag = (compact[0] as number) >> 4;
  if (flag > 3) throw new TernError('SNAP_BAD_PATH', `bad compact path flag ${flag}`);
  const odd = flag & 1;
  const all = toNibbles(compact);
  return all.subarray(odd ? 1 : 2);
}
