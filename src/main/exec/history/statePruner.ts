// Pruning of old state (--gcmode full, --history.state): trie nodes are content-addressed in the 't' table and every
// block adds its new ones, so without pruning the table grows with every block. Mark and sweep, chosen over
// reference counts because counting would put a read-modify-write of a counter per node on the import path and
// a counting bug would silently delete live state; a sweep only deletes what it has just proven unreachable:
//   mark  — over one snapshot, walk the account trie of every retained root (the canonical blocks of the retention
//           window, every block whose reverse changes a reorg may still unwind to, and side blocks with forward
//           changes), descending into each account's storage trie; shared subtrees are walked once;
//   sweep — list the unmarked nodes of the same snapshot; delete them in batches, each batch from a head-event
//           listener right after a block was committed: the new head's trie (and new side blocks') is marked first,
//           walking only nodes not yet marked, so a node a new block re-created is never deleted. Chain writes are
//           serialised (Engine API queue, importer), so no block commit is in flight while a listener runs.
// Roots older than the window then answer "missing trie node", as geth's pruned hash-scheme state does.
import type { Logger } from '../../common/logger/index.js';
import { decodeHeader } from '../../primitives/block/header.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import { decodeAccountRecord } from '../chain/stateStore.js';
import * as chain from '../db/chain.js';
import type { KVReader, KVStore } from '../db/interface.js';
import { decodeNumber, encodeNumber, MetaKey, metaKey, NUMBER_LENGTH, TablePrefix, tablePrefix } from '../db/schema.js';
import { readTrieNode } from '../db/state.js';
import { BRANCH, decodeNode, EMBEDDED, EXTENSION, HASH, hashOf, LEAF, type Ref } from '../state/trie/node.js';
import { headNumber } from './txIndexer.js';

export interface StatePrunerOptions {
  /** Canonical blocks whose state is kept, counting the head; 0 keeps everything (archive). */
  retain: number;
  /** Start a new mark phase once the head is this many blocks past the last one. */
  interval: number;
  /** Nodes deleted per batch. */
  batchNodes?: number;
}

const key = (h: Uint8Array) => Buffer.from(h.buffer, h.byteOffset, h.length).toString('latin1');
const isEmptyRoot = (r: Uint8Array) => Buffer.compare(r, EMPTY_TRIE_ROOT) === 0;

/** Marks every node reachable from the roots (account tries, and their storage tries). */
export class TrieMarker {
  readonly marked = new Set<string>();

  /** Walks the account trie at `root`, skipping subtrees already marked; returns how many nodes it marked. */
  markState(r: KVReader, root: Uint8Array): number {
    return this.#walk(r, root, true);
  }

  #walk(r: KVReader, root: Uint8Array, accounts: boolean): number {
    if (isEmptyRoot(root)) return 0;
    let n = 0;
    const stack: Array<[Uint8Array, boolean]> = [[root, accounts]];
    while (stack.length > 0) {
      const [hash, isAccount] = stack.pop()!;
      const k = key(hash);
      if (this.marked.has(k)) continue;
      const rlp = readTrieNode(r, hash);
      if (rlp === undefined) continue; // already pruned (an old root) or never stored: nothing to keep
      this.marked.add(k);
      n++;
      const refs: Ref[] = [decodeNode(rlp)];
      while (refs.length > 0) {
        const ref = refs.pop()!;
        if (ref.t === HASH) stack.push([hashOf(ref).slice(), isAccount]);
        else if (ref.t === EMBEDDED) refs.push(decodeNode(ref.rlp));
        else if (ref.t === EXTENSION) refs.push(ref.child);
        else if (ref.t === BRANCH) {
          for (const c of ref.children) if (c !== null) refs.push(c);
        } else if (ref.t === LEAF && isAccount) {
          const storageRoot = decodeAccountRecord(ref.value).storageRoot;
          if (storageRoot !== undefined && !isEmptyRoot(storageRoot)) stack.push([storageRoot.slice(), false]);
        }
      }
    }
    return n;
  }
}

function stateRootOf(r: chain.ChainReader, number: number, hash: Uint8Array): Uint8Array | undefined {
  const rlp = chain.readHeaderRlp(r, number, hash);
  return rlp === undefined ? undefined : decodeHeader(rlp).stateRoot;
}

/** The roots a prune keeps with `head` as the head block, and the lowest canonical block kept. */
export function retainedRoots(
  r: chain.ChainReader,
  head: number,
  retain: number,
): { roots: Uint8Array[]; keepFrom: number } {
  let keepFrom = Math.max(0, head - retain + 1);
  // A reorg may unwind every block that still has reverse changes, down to the parent of the oldest.
  for (const { key: k } of r.kv.iterate({ prefix: tablePrefix(TablePrefix.reverseChanges), limit: 1 }))
    keepFrom = Math.min(keepFrom, Math.max(0, decodeNumber(k, 1) - 1));
  const roots: Uint8Array[] = [];
  for (let n = keepFrom; n <= head; n++) {
    const hash = chain.readCanonicalHash(r, n);
    const root = hash === undefined ? undefined : stateRootOf(r, n, hash);
    if (root !== undefined) roots.push(root);
  }
  for (const { key: k } of r.kv.iterate({ prefix: tablePrefix(TablePrefix.forwardChanges) })) {
    const root = stateRootOf(r, decodeNumber(k, 1), k.slice(1 + NUMBER_LENGTH));
    if (root !== undefined) roots.push(root);
  }
  return { roots, keepFrom };
}

/** The number below which canonical state roots were pruned (for messages), if a prune has run. */
export function readStatePrunedBelow(r: KVReader): number | undefined {
  const v = r.get(metaKey(MetaKey.statePrunedBelow));
  return v === undefined ? undefined : decodeNumber(v);
}

interface Sweep {
  marker: TrieMarker;
  /** Unmarked nodes of the mark snapshot, not deleted yet. */
  pending: Uint8Array[];
  keepFrom: number;
  /** Side-block keys seen when marking, to find new ones. */
  sideSeen: Set<string>;
}

export class StatePruner {
  readonly #db: { readonly kv: KVStore } & chain.ChainReader;
  readonly #opts: StatePrunerOptions;
  readonly #logger: Logger | undefined;
  #lastMarkHead: number | undefined;
  #sweep: Sweep | undefined;

  constructor(db: { readonly kv: KVStore } & chain.ChainReader, opts: StatePrunerOptions, logger?: Logger) {
    this.#db = db;
    this.#opts = opts;
    this.#logger = logger;
  }

  /** True while nodes found unreachable wait for deletion. */
  get sweeping(): boolean {
    return this.#sweep !== undefined;
  }

  /** Starts a mark phase when due (retention on and the head far enough past the last one). */
  markIfDue(): boolean {
    if (this.#opts.retain === 0 || this.#sweep !== undefined) return false;
    const snap = this.#db.kv.snapshot();
    try {
      const reader = { kv: snap, ancients: this.#db.ancients };
      const head = headNumber(reader);
      if (head === undefined || head < this.#opts.retain) return false;
      if (this.#lastMarkHead !== undefined && head - this.#lastMarkHead < this.#opts.interval) return false;
      this.#lastMarkHead = head;
      const { roots, keepFrom } = retainedRoots(reader, head, this.#opts.retain);
      const marker = new TrieMarker();
      for (const root of roots) marker.markState(snap, root);
      const pending: Uint8Array[] = [];
      for (const { key: k } of snap.iterate({ prefix: tablePrefix(TablePrefix.trieNode) }))
        if (!marker.marked.has(key(k.subarray(1)))) pending.push(k);
      const sideSeen = new Set<string>();
      for (const { key: k } of snap.iterate({ prefix: tablePrefix(TablePrefix.forwardChanges) })) sideSeen.add(key(k));
      this.#logger?.debug('Marked retained state', {
        head,
        keepFrom,
        roots: roots.length,
        unreachable: pending.length,
      });
      this.#sweep = { marker, pending, keepFrom, sideSeen };
      return true;
    } finally {
      snap.release();
    }
  }

  /**
   * Deletes one batch of unreachable nodes. Call right after a block commit (a head event): it first marks the
   * current head's state and any new side block's state, so nothing they use is deleted. Returns nodes deleted.
   */
  async sweepStep(): Promise<number> {
    const sweep = this.#sweep;
    if (sweep === undefined) return 0;
    const kv = this.#db.kv;
    const head = headNumber(this.#db);
    if (head !== undefined) {
      const hash = chain.readCanonicalHash(this.#db, head);
      const root = hash === undefined ? undefined : stateRootOf(this.#db, head, hash);
      if (root !== undefined) sweep.marker.markState(kv, root);
    }
    for (const { key: k } of kv.iterate({ prefix: tablePrefix(TablePrefix.forwardChanges) })) {
      if (sweep.sideSeen.has(key(k))) continue;
      sweep.sideSeen.add(key(k));
      const root = stateRootOf(this.#db, decodeNumber(k, 1), k.slice(1 + NUMBER_LENGTH));
      if (root !== undefined) sweep.marker.markState(kv, root);
    }
    const b = kv.batch();
    const max = this.#opts.batchNodes ?? 10_000;
    let deleted = 0;
    while (sweep.pending.length > 0 && deleted < max) {
      const k = sweep.pending.pop()!;
      if (sweep.marker.marked.has(key(k.subarray(1)))) continue;
      b.delete(k);
      deleted++;
    }
    if (sweep.pending.length === 0) {
      b.put(metaKey(MetaKey.statePrunedBelow), encodeNumber(sweep.keepFrom));
      this.#sweep = undefined;
      this.#logger?.info('Pruned old state', { keptFrom: sweep.keepFrom });
    }
    // Committed before any later block's batch (commits land in call order).
    await b.commit();
    return deleted;
  }
}
