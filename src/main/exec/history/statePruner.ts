// Pruning of old state (--gcmode full, --history.state): trie nodes are content-addressed in the 't' table and every
// block adds its new ones, so without pruning the table grows with every block. Mark and sweep, chosen over
// reference counts because counting would put a read-modify-write of a counter per node on the import path and
// a counting bug would silently delete live state; a sweep only deletes what it has just proven unreachable:
//   mark  — over one snapshot, walk the account trie of every retained root (the canonical blocks of the retention
//           window, every block whose reverse changes a reorg may still unwind to, and side blocks with forward
//           changes), descending into each account's storage trie; shared subtrees are walked once. The mark runs
//           in slices of ~5 ms on the event loop (StatePruner.runMark says why not a worker), the snapshot held
//           throughout; the roots of blocks committed meanwhile are queued into it (sweepStep) and walked from the
//           live store before it ends, so the marked set is closed (every marked node's subtree marked) when the
//           sweep starts;
//   sweep — list the unmarked nodes of the same snapshot; delete them in batches, each batch from a head-event
//           listener right after a block was committed: the new head's trie (and new side blocks') is marked first,
//           walking only nodes not yet marked, so a node a new block re-created is never deleted. Chain writes are
//           serialised (Engine API queue, importer), so no block commit is in flight while a listener runs.
// Roots older than the window then answer "missing trie node", as geth's pruned hash-scheme state does.
// For the whole prune, forkchoiceUpdated writes each head's trie nodes in the head's own batch (../chain/
// trieNodeWrites.ts): a mark starts only once the executor's deferred node write in flight, if any, has landed.

import type { KVReader, KVStore, ReadSnapshot } from '../../common/db/interface.js';
import type { Logger } from '../../common/logger/index.js';
import { decodeHeader } from '../../primitives/block/header.js';
import { BRANCH, decodeNode, EMBEDDED, EXTENSION, HASH, hashOf, LEAF, type Ref } from '../../primitives/trie/node.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import { trieNodeWrites } from '../chain/trieNodeWrites.js';
import * as chain from '../db/chain.js';
import { decodeNumber, encodeNumber, MetaKey, metaKey, NUMBER_LENGTH, TablePrefix, tablePrefix } from '../db/schema.js';
import { readTrieNode } from '../db/state.js';
import { decodeAccountRecord } from '../state/stateStore.js';
import { headNumber } from './txIndexer.js';

export interface StatePrunerOptions {
  /** Canonical blocks whose state is kept, counting the head; 0 keeps everything (archive). */
  retain: number;
  /** Start a new mark phase once the head is this many blocks past the last one. */
  interval: number;
  /** Nodes deleted per batch. */
  batchNodes?: number;
  /** Longest run of the mark phase between two turns of the event loop, ms (default 5). */
  sliceMs?: number;
  /** Most nodes (or blocks, or listed keys) handled per slice, besides sliceMs (tests); default no limit. */
  sliceNodes?: number;
}

const key = (h: Uint8Array) => Buffer.from(h.buffer, h.byteOffset, h.length).toString('latin1');
const isEmptyRoot = (r: Uint8Array) => Buffer.compare(r, EMPTY_TRIE_ROOT) === 0;

/** Marks every node reachable from the roots (account tries, and their storage tries). */
export class TrieMarker {
  readonly marked = new Set<string>();
  /** Hashes queued by push(), walked by drain(): [hash, is an account-trie node]. */
  readonly #queue: Array<[Uint8Array, boolean]> = [];

  /** Walks the account trie at `root`, skipping subtrees already marked; returns how many nodes it marked. */
  markState(r: KVReader, root: Uint8Array): number {
    if (isEmptyRoot(root)) return 0;
    const stack: Array<[Uint8Array, boolean]> = [[root, true]];
    let n = 0;
    while (stack.length > 0) n += this.#visit(stack, (h) => readTrieNode(r, h));
    return n;
  }

  /** Queues the account trie at `root` for drain(). */
  push(root: Uint8Array): void {
    if (!isEmptyRoot(root)) this.#queue.push([root.slice(), true]);
  }

  /** True when nothing queued is left to walk. */
  get idle(): boolean {
    return this.#queue.length === 0;
  }

  /**
   * Walks queued nodes until the queue is empty or `maxNodes` nodes were read; returns the nodes read. While the
   * queue is not empty the marked set is not closed (a marked node's children may still be queued), so a subtree is
   * skipped only because its root is marked and its children are marked or queued: once idle, it is closed again.
   */
  drain(read: (hash: Uint8Array) => Uint8Array | undefined, maxNodes: number): number {
    let visited = 0;
    while (this.#queue.length > 0 && visited < maxNodes) {
      this.#visit(this.#queue, read);
      visited++;
    }
    return visited;
  }

  /** Pops one hash off `stack`; marks it and pushes its children when it is new. Returns 1 when it marked it. */
  #visit(stack: Array<[Uint8Array, boolean]>, read: (hash: Uint8Array) => Uint8Array | undefined): number {
    const [hash, isAccount] = stack.pop()!;
    const k = key(hash);
    if (this.marked.has(k)) return 0;
    const rlp = read(hash);
    if (rlp === undefined) return 0; // already pruned (an old root) or never stored: nothing to keep
    this.marked.add(k);
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
    return 1;
  }
}

function stateRootOf(r: chain.ChainReader, number: number, hash: Uint8Array): Uint8Array | undefined {
  const rlp = chain.readHeaderRlp(r, number, hash);
  return rlp === undefined ? undefined : decodeHeader(rlp).stateRoot;
}

/** The lowest canonical block whose state a prune keeps with `head` as the head block. */
function retainFrom(kv: KVReader, head: number, retain: number): number {
  let keepFrom = Math.max(0, head - retain + 1);
  // A reorg may unwind every block that still has reverse changes, down to the parent of the oldest.
  for (const { key: k } of kv.iterate({ prefix: tablePrefix(TablePrefix.reverseChanges), limit: 1 }))
    keepFrom = Math.min(keepFrom, Math.max(0, decodeNumber(k, 1) - 1));
  return keepFrom;
}

/** The roots a prune keeps with `head` as the head block, and the lowest canonical block kept. */
export function retainedRoots(
  r: chain.ChainReader,
  head: number,
  retain: number,
): { roots: Uint8Array[]; keepFrom: number } {
  const keepFrom = retainFrom(r.kv, head, retain);
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

/** The block below which the state was pruned (the sweep's or the offline pruner's marker), if any. */
export function readStatePrunedBelow(r: KVReader): number | undefined {
  const v = r.get(metaKey(MetaKey.statePrunedBelow));
  return v === undefined ? undefined : decodeNumber(v);
}

/** A mark under way: the snapshot it reads and where it stands. */
interface Mark {
  snap: ReadSnapshot;
  marker: TrieMarker;
  head: number;
  keepFrom: number;
  /** Next canonical block whose root is queued (roots phase), up to `head`. */
  nextRoot: number;
  /** Listing cursor: the last trie-node key listed (listing phase). */
  listedTo: Uint8Array | undefined;
  phase: 'roots' | 'walk' | 'list';
  pending: Uint8Array[];
  sideSeen: Set<string>;
}

interface Sweep {
  marker: TrieMarker;
  /** Unmarked nodes of the mark snapshot, not deleted yet. */
  pending: Uint8Array[];
  keepFrom: number;
  /** Side-block keys seen when marking, to find new ones. */
  sideSeen: Set<string>;
}

/** Blocks handled between two clock reads. */
const CLOCK_EVERY = 256;
/** Trie-node keys listed per range read (and clock read). */
const LIST_CHUNK = 64;
/** Trie nodes walked between two clock reads (a node with its account leaves decoded is ~5-50 µs). */
const WALK_CLOCK_EVERY = 16;

export class StatePruner {
  readonly #db: { readonly kv: KVStore } & chain.ChainReader;
  readonly #opts: StatePrunerOptions;
  readonly #logger: Logger | undefined;
  #lastMarkHead: number | undefined;
  #mark: Mark | undefined;
  #sweep: Sweep | undefined;
  /** The mark's slice loop, while it runs. */
  #marking: Promise<void> | undefined;
  #stopped = false;
  /** The hold on deferred trie-node writes, from the mark's start to the sweep's end; `ready` false while waiting. */
  #hold: { release: () => void; ready: boolean } | undefined;
  /** Waiters for the next slice (sweepStep while marking). */
  #sliceWaiters: Array<() => void> = [];
  /** Slices run by marks so far, and the longest one in ms (tests, the measurement). */
  readonly stats = { slices: 0, longestSliceMs: 0 };

  constructor(db: { readonly kv: KVStore } & chain.ChainReader, opts: StatePrunerOptions, logger?: Logger) {
    this.#db = db;
    this.#opts = opts;
    this.#logger = logger;
  }

  /**
   * True while a prune is under way, marking or sweeping: the head-event listener must call sweepStep after every
   * block commit until it is false again.
   */
  get sweeping(): boolean {
    return this.#mark !== undefined || this.#sweep !== undefined;
  }

  /** True while the mark phase runs (in slices on the event loop). */
  get marking(): boolean {
    return this.#mark !== undefined;
  }

  /** Resolves when no mark is running (it finished, failed or was stopped). */
  async markDone(): Promise<void> {
    await this.#marking;
  }

  /**
   * Starts a mark phase when due (retention on and the head far enough past the last one); true when it started.
   * The mark runs in slices of at most sliceMs on the event loop (runMark); the sweep follows when it is done.
   */
  markIfDue(): boolean {
    if (this.#opts.retain === 0 || this.sweeping || this.#stopped) return false;
    const snap = this.#db.kv.snapshot();
    let started = false;
    try {
      const reader = { kv: snap, ancients: this.#db.ancients };
      const head = headNumber(reader);
      if (head === undefined || head < this.#opts.retain) return false;
      if (this.#lastMarkHead !== undefined && head - this.#lastMarkHead < this.#opts.interval) return false;
      if (!this.#holdNodeWrites()) return false;
      this.#lastMarkHead = head;
      const keepFrom = retainFrom(snap, head, this.#opts.retain);
      this.#mark = {
        snap,
        marker: new TrieMarker(),
        head,
        keepFrom,
        nextRoot: keepFrom,
        listedTo: undefined,
        phase: 'roots',
        pending: [],
        sideSeen: new Set(),
      };
      // Side blocks with forward changes may still become canonical: their states are kept.
      for (const { key: k } of snap.iterate({ prefix: tablePrefix(TablePrefix.forwardChanges) })) {
        this.#mark.sideSeen.add(key(k));
        const root = stateRootOf(reader, decodeNumber(k, 1), k.slice(1 + NUMBER_LENGTH));
        if (root !== undefined) this.#mark.marker.push(root);
      }
      started = true;
      this.#marking = this.#runMark(this.#mark).finally(() => {
        this.#marking = undefined;
      });
      return true;
    } finally {
      if (!started) snap.release();
    }
  }

  /**
   * Turns deferred trie-node writes off for the prune; true once no deferred write can be in flight (else the next
   * markIfDue tries again).
   */
  #holdNodeWrites(): boolean {
    if (this.#hold === undefined) {
      const { release, ready } = trieNodeWrites(this.#db).hold();
      const hold = { release, ready: ready === undefined };
      this.#hold = hold;
      void ready?.then(() => {
        hold.ready = true;
      });
    }
    return this.#hold.ready;
  }

  /** Turns deferred trie-node writes back on (the prune ended, failed or stopped). */
  #releaseNodeWrites(): void {
    this.#hold?.release();
    this.#hold = undefined;
  }

  /**
   * Runs the mark in slices, yielding to the event loop (setImmediate) between them, all over the one snapshot taken
   * by markIfDue (held until the listing is done; an LMDB snapshot only keeps old pages from reuse). Blocks committed
   * meanwhile reach the mark through sweepStep (their roots are queued and walked from the live store); nothing is
   * deleted before the mark is complete, so a node read from the snapshot is also in the live store.
   *
   * Slices on the coordinator thread rather than a worker: the marked set must live where sweepStep marks each new
   * head before its delete batch (synchronously, in the head-event listener), the in-memory engine (--dev, tests)
   * cannot be opened from another thread, and the walk is memory-mapped reads and RLP decoding, a few µs a node.
   * The total work is the same as the synchronous mark; what changes is that no slice blocks for more than ~sliceMs.
   */
  async #runMark(m: Mark): Promise<void> {
    try {
      while (!this.#stopped) {
        await new Promise<void>((r) => setImmediate(r));
        if (this.#stopped) break;
        const t0 = performance.now();
        const done = this.#slice(m, t0 + (this.#opts.sliceMs ?? 5));
        const ms = performance.now() - t0;
        this.stats.slices++;
        if (ms > this.stats.longestSliceMs) this.stats.longestSliceMs = ms;
        this.#wakeWaiters();
        if (done) return;
      }
    } catch (err) {
      this.#logger?.error('State prune mark failed; retrying at the next interval', {
        err: err instanceof Error ? err.message : String(err),
      });
      this.#mark = undefined;
      this.#releaseNodeWrites();
    } finally {
      m.snap.release();
      if (this.#mark === m) this.#mark = undefined;
      this.#wakeWaiters();
    }
  }

  #wakeWaiters(): void {
    const waiters = this.#sliceWaiters;
    this.#sliceWaiters = [];
    for (const w of waiters) w();
  }

  /** One slice of the mark, until `deadline`; true when the mark is complete (and the sweep set up). */
  #slice(m: Mark, deadline: number): boolean {
    const reader = { kv: m.snap, ancients: this.#db.ancients };
    const live = this.#db.kv;
    const maxNodes = this.#opts.sliceNodes ?? Number.POSITIVE_INFINITY;
    let budget = maxNodes;
    const timeLeft = () => performance.now() < deadline && budget > 0;
    if (m.phase === 'roots') {
      while (m.nextRoot <= m.head && timeLeft()) {
        const end = Math.min(m.head, m.nextRoot + CLOCK_EVERY - 1);
        for (; m.nextRoot <= end; m.nextRoot++) {
          const hash = chain.readCanonicalHash(reader, m.nextRoot);
          const root = hash === undefined ? undefined : stateRootOf(reader, m.nextRoot, hash);
          if (root !== undefined) m.marker.push(root);
        }
        budget -= CLOCK_EVERY;
      }
      if (m.nextRoot <= m.head) return false;
      m.phase = 'walk';
    }
    // A node the snapshot lacks was written after it (a block committed during the mark): read it live.
    const read = (h: Uint8Array) => readTrieNode(m.snap, h) ?? readTrieNode(live, h);
    if (m.phase === 'walk') {
      while (!m.marker.idle && timeLeft()) budget -= m.marker.drain(read, Math.min(WALK_CLOCK_EVERY, budget));
      if (!m.marker.idle) return false;
      m.phase = 'list';
    }
    // List the snapshot's nodes not marked: the candidates. (A node marked later is skipped by sweepStep.)
    while (timeLeft()) {
      let n = 0;
      const opts =
        m.listedTo === undefined
          ? { prefix: tablePrefix(TablePrefix.trieNode), limit: LIST_CHUNK }
          : { prefix: tablePrefix(TablePrefix.trieNode), gte: afterKey(m.listedTo), limit: LIST_CHUNK };
      for (const { key: k } of m.snap.iterate(opts)) {
        n++;
        m.listedTo = k;
        if (!m.marker.marked.has(key(k.subarray(1)))) m.pending.push(k);
      }
      budget -= n;
      if (n < LIST_CHUNK) {
        // Listing done. Roots queued by blocks committed meanwhile are walked before the sweep may start, so the
        // marked set is closed when sweepStep relies on it.
        this.#queueLive(m.marker, m.sideSeen);
        while (!m.marker.idle) m.marker.drain(read, CLOCK_EVERY);
        this.#logger?.debug('Marked retained state', {
          head: m.head,
          keepFrom: m.keepFrom,
          marked: m.marker.marked.size,
          unreachable: m.pending.length,
          slices: this.stats.slices,
        });
        this.#sweep = { marker: m.marker, pending: m.pending, keepFrom: m.keepFrom, sideSeen: m.sideSeen };
        this.#mark = undefined;
        return true;
      }
    }
    return false;
  }

  /** Queues the live head's root and those of side blocks not seen yet (no walking). */
  #queueLive(marker: TrieMarker, sideSeen: Set<string>): void {
    for (const root of this.#newRoots(sideSeen)) marker.push(root);
  }

  /** The state roots of the live head and of side blocks not in `sideSeen` (added to it). */
  #newRoots(sideSeen: Set<string>): Uint8Array[] {
    const roots: Uint8Array[] = [];
    const head = headNumber(this.#db);
    if (head !== undefined) {
      const hash = chain.readCanonicalHash(this.#db, head);
      const root = hash === undefined ? undefined : stateRootOf(this.#db, head, hash);
      if (root !== undefined) roots.push(root);
    }
    for (const { key: k } of this.#db.kv.iterate({ prefix: tablePrefix(TablePrefix.forwardChanges) })) {
      if (sideSeen.has(key(k))) continue;
      sideSeen.add(key(k));
      const root = stateRootOf(this.#db, decodeNumber(k, 1), k.slice(1 + NUMBER_LENGTH));
      if (root !== undefined) roots.push(root);
    }
    return roots;
  }

  /**
   * Call right after every block commit (a head event) while `sweeping`. While marking, it queues the new head's
   * state and any new side block's for the mark, and resolves after the mark's next slice, deleting nothing. Once
   * marked, it marks the new head's and new side blocks' state (walking only unmarked nodes), so nothing they use is
   * deleted, then deletes one batch of unreachable nodes. Returns nodes deleted.
   */
  async sweepStep(): Promise<number> {
    const mark = this.#mark;
    if (mark !== undefined) {
      this.#queueLive(mark.marker, mark.sideSeen);
      await new Promise<void>((r) => this.#sliceWaiters.push(r));
      return 0;
    }
    const sweep = this.#sweep;
    if (sweep === undefined) return 0;
    const kv = this.#db.kv;
    for (const root of this.#newRoots(sweep.sideSeen)) sweep.marker.markState(kv, root);
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
    try {
      await b.commit();
    } finally {
      // Not when a new prune has started meanwhile: it goes on with the same hold.
      if (this.#sweep === undefined && this.#mark === undefined) this.#releaseNodeWrites();
    }
    return deleted;
  }

  /** Stops a mark under way (releasing its snapshot) and drops a pending sweep; later calls start nothing. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#marking;
    this.#sweep = undefined;
    this.#releaseNodeWrites();
    this.#wakeWaiters();
  }
}

/** The smallest key after `k`. */
function afterKey(k: Uint8Array): Uint8Array {
  const out = new Uint8Array(k.length + 1);
  out.set(k);
  return out;
}
