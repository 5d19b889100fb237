// The packed form of new trie nodes (interface.ts PackedNodes): what an update returns, the commitment carries, the
// hasher worker transfers and the database writer reads. One hashes buffer, one RLP buffer and one offsets array
// instead of a pair of views per node: a 100k-key update makes ~140k nodes, and the objects of a per-node form cost
// as much as the update itself.
import { TernError } from '../errors.js';
import type { PackedNodes, TrieNode } from './interface.js';

const HASH = 32;

/** How many nodes `nodes` holds. */
export function nodeCount(nodes: PackedNodes): number {
  return nodes.offsets.length - 1;
}

/** Each node as [hash, rlp] views into the packed buffers (made as iterated: read them, copy what is kept). */
export function* eachNode(nodes: PackedNodes): Generator<TrieNode, void, undefined> {
  const { hashes, rlps, offsets } = nodes;
  const n = offsets.length - 1;
  for (let i = 0; i < n; i++) {
    yield [hashes.subarray(HASH * i, HASH * i + HASH), rlps.subarray(offsets[i] as number, offsets[i + 1] as number)];
  }
}

/** No nodes (fresh arrays each time: a caller may transfer them). */
export function emptyNodes(): PackedNodes {
  return { hashes: new Uint8Array(0), rlps: new Uint8Array(0), offsets: new Uint32Array(1) };
}

/** Packs [hash, rlp] pairs (tests, and callers that build nodes one by one). */
export function packNodes(list: readonly TrieNode[]): PackedNodes {
  const n = list.length;
  const hashes = new Uint8Array(HASH * n);
  const offsets = new Uint32Array(n + 1);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const [hash, rlp] = list[i] as TrieNode;
    if (hash.length !== HASH) throw new TernError('TRIE_BAD_NODE', `node ${i}: a hash of ${hash.length} bytes`);
    hashes.set(hash, HASH * i);
    offsets[i] = size;
    size += rlp.length;
  }
  offsets[n] = size;
  const rlps = new Uint8Array(size);
  for (let i = 0; i < n; i++) rlps.set((list[i] as TrieNode)[1], offsets[i] as number);
  return { hashes, rlps, offsets };
}

/** The nodes of `parts` in order, as one packed set; a single non-empty part comes back as it is (no copy). */
export function concatNodes(parts: readonly PackedNodes[]): PackedNodes {
  const filled = parts.filter((p) => nodeCount(p) > 0);
  if (filled.length === 1) return filled[0] as PackedNodes;
  if (filled.length === 0) return emptyNodes();
  let count = 0;
  let size = 0;
  for (const p of filled) {
    count += nodeCount(p);
    size += p.rlps.length;
  }
  const hashes = new Uint8Array(HASH * count);
  const rlps = new Uint8Array(size);
  const offsets = new Uint32Array(count + 1);
  let n = 0;
  let base = 0;
  for (const p of filled) {
    const k = nodeCount(p);
    hashes.set(p.hashes, HASH * n);
    rlps.set(p.rlps, base);
    for (let i = 0; i < k; i++) offsets[n + i] = base + (p.offsets[i] as number);
    n += k;
    base += p.rlps.length;
  }
  offsets[count] = size;
  return { hashes, rlps, offsets };
}

/** The nodes in arrays of their own (before transferring buffers that other views still read). */
export function copyNodes(nodes: PackedNodes): PackedNodes {
  return { hashes: nodes.hashes.slice(), rlps: nodes.rlps.slice(), offsets: nodes.offsets.slice() };
}

/** The distinct buffers under the arrays, to transfer (a transfer list must not name a buffer twice). */
export function nodeBuffers(nodes: PackedNodes): ArrayBuffer[] {
  return [...new Set([nodes.hashes.buffer, nodes.rlps.buffer, nodes.offsets.buffer])] as ArrayBuffer[];
}

/** Throws TRIE_BAD_NODE unless the arrays are a well-formed packed set (see PackedNodes): for data off a thread. */
export function checkNodes(nodes: PackedNodes): void {
  const { hashes, rlps, offsets } = nodes;
  const n = offsets.length - 1;
  const bad = (why: string): TernError => new TernError('TRIE_BAD_NODE', `packed trie nodes: ${why}`);
  if (n < 0) throw bad('no offsets');
  if (hashes.length !== HASH * n) throw bad(`${hashes.length} hash bytes for ${n} nodes`);
  if (offsets[0] !== 0 || offsets[n] !== rlps.length) throw bad('offsets do not span the RLP bytes');
  for (let i = 0; i < n; i++) {
    if ((offsets[i] as number) > (offsets[i + 1] as number)) throw bad(`offsets decrease at node ${i}`);
  }
}
