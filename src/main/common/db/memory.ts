// The in-memory KVStore: for --dev without a datadir and for tests. The data is a persistent (immutable, path-copying)
// treap: a commit builds a new root sharing every untouched node with the old one, so a snapshot is just a root held
// on to, and a commit is atomic by construction (the root is swapped once). Nothing survives close().

import { TernError } from '../errors.js';
import type { Logger } from '../logger/index.js';
import {
  checkKey,
  checkLimit,
  checkValue,
  compareBytes,
  DbErrorCode,
  type IterateOptions,
  type KVEntry,
  type KVStore,
  type ReadSnapshot,
  resolveRange,
  type WriteBatch,
} from './interface.js';

export interface MemoryStoreOptions {
  /** Name shown in log lines. */
  name?: string;
}

export const memoryStoreDefaults = { name: 'memory' } as const;

export interface MemoryStoreDeps {
  logger?: Logger;
}

interface TreapNode {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
  readonly prio: number;
  readonly left: TreapNode | null;
  readonly right: TreapNode | null;
}

function node(
  key: Uint8Array,
  value: Uint8Array,
  prio: number,
  left: TreapNode | null,
  right: TreapNode | null,
): TreapNode {
  return { key, value, prio, left, right };
}

function lookup(t: TreapNode | null, key: Uint8Array): TreapNode | null {
  while (t !== null) {
    const c = compareBytes(key, t.key);
    if (c === 0) return t;
    t = c < 0 ? t.left : t.right;
  }
  return null;
}

function insert(t: TreapNode | null, key: Uint8Array, value: Uint8Array, prio: number): TreapNode {
  if (t === null) return node(key, value, prio, null, null);
  const c = compareBytes(key, t.key);
  if (c === 0) return node(t.key, value, t.prio, t.left, t.right);
  if (c < 0) {
    const l = insert(t.left, key, value, prio);
    // Rotate right when the new child outranks its parent (heap order on prio).
    if (l.prio > t.prio) return node(l.key, l.value, l.prio, l.left, node(t.key, t.value, t.prio, l.right, t.right));
    return node(t.key, t.value, t.prio, l, t.right);
  }
  const r = insert(t.right, key, value, prio);
  if (r.prio > t.prio) return node(r.key, r.value, r.prio, node(t.key, t.value, t.prio, t.left, r.left), r.right);
  return node(t.key, t.value, t.prio, t.left, r);
}

/** Joins two treaps where every key of `a` is below every key of `b`. */
function merge(a: TreapNode | null, b: TreapNode | null): TreapNode | null {
  if (a === null) return b;
  if (b === null) return a;
  if (a.prio > b.prio) return node(a.key, a.value, a.prio, a.left, merge(a.right, b));
  return node(b.key, b.value, b.prio, merge(a, b.left), b.right);
}

function remove(t: TreapNode | null, key: Uint8Array): TreapNode | null {
  if (t === null) return null;
  const c = compareBytes(key, t.key);
  if (c === 0) return merge(t.left, t.right);
  if (c < 0) {
    const l = remove(t.left, key);
    return l === t.left ? t : node(t.key, t.value, t.prio, l, t.right);
  }
  const r = remove(t.right, key);
  return r === t.right ? t : node(t.key, t.value, t.prio, t.left, r);
}

/** In-order walk of [lower, upper) over one immutable root, ascending or descending, with an explicit stack. */
function* walk(root: TreapNode | null, opts: IterateOptions): Generator<KVEntry, void, undefined> {
  checkLimit(opts.limit);
  const { lower, upper, empty } = resolveRange(opts);
  if (empty) return;
  let left = opts.limit ?? Number.POSITIVE_INFINITY;
  const reverse = opts.reverse === true;
  const inLower = (k: Uint8Array): boolean => lower === undefined || compareBytes(k, lower) >= 0;
  const inUpper = (k: Uint8Array): boolean => upper === undefined || compareBytes(k, upper) < 0;
  const stack: TreapNode[] = [];
  // Descend to the first node in range, stacking the nodes still to visit (those on the far side of the path).
  let t = root;
  while (t !== null) {
    if (!reverse) {
      if (inLower(t.key)) {
        stack.push(t);
        t = t.left;
      } else t = t.right;
    } else if (inUpper(t.key)) {
      stack.push(t);
      t = t.right;
    } else t = t.left;
  }
  while (stack.length > 0 && left > 0) {
    const n = stack.pop()!;
    if (reverse ? !inLower(n.key) : !inUpper(n.key)) return;
    left--;
    yield { key: n.key.slice(), value: n.value.slice() };
    let c = reverse ? n.left : n.right;
    while (c !== null) {
      stack.push(c);
      c = reverse ? c.right : c.left;
    }
  }
}

type Op = { put: true; key: Uint8Array; value: Uint8Array } | { put: false; key: Uint8Array };

export class MemoryStore implements KVStore {
  #root: TreapNode | null = null;
  #closed = false;
  readonly #snapshots = new Set<MemorySnapshot>();
  readonly #name: string;
  readonly #logger: Logger | undefined;

  constructor(opts: MemoryStoreOptions = {}, deps: MemoryStoreDeps = {}) {
    this.#name = opts.name ?? memoryStoreDefaults.name;
    this.#logger = deps.logger;
    this.#logger?.debug('Opened in-memory database', { name: this.#name });
  }

  get(key: Uint8Array): Uint8Array | undefined {
    this.#check();
    return lookup(this.#root, key)?.value.slice();
  }

  has(key: Uint8Array): boolean {
    this.#check();
    return lookup(this.#root, key) !== null;
  }

  iterate(opts: IterateOptions = {}): IterableIterator<KVEntry> {
    this.#check();
    return walk(this.#root, opts);
  }

  batch(): WriteBatch {
    this.#check();
    return new MemoryBatch((ops) => this.#apply(ops));
  }

  snapshot(): ReadSnapshot {
    this.#check();
    const snap = new MemorySnapshot(this.#root, (s) => this.#snapshots.delete(s));
    this.#snapshots.add(snap);
    return snap;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#root = null;
    for (const snap of [...this.#snapshots]) snap.release();
    this.#logger?.debug('Closed in-memory database', { name: this.#name });
  }

  #apply(ops: readonly Op[]): void {
    this.#check();
    let root = this.#root;
    for (const op of ops) root = op.put ? insert(root, op.key, op.value, Math.random()) : remove(root, op.key);
    this.#root = root;
  }

  #check(): void {
    if (this.#closed) throw new TernError(DbErrorCode.closed, `database ${this.#name} is closed`);
  }
}

class MemorySnapshot implements ReadSnapshot {
  #root: TreapNode | null;
  #released = false;
  readonly #onRelease: (s: MemorySnapshot) => void;

  constructor(root: TreapNode | null, onRelease: (s: MemorySnapshot) => void) {
    this.#root = root;
    this.#onRelease = onRelease;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    this.#check();
    return lookup(this.#root, key)?.value.slice();
  }

  has(key: Uint8Array): boolean {
    this.#check();
    return lookup(this.#root, key) !== null;
  }

  iterate(opts: IterateOptions = {}): IterableIterator<KVEntry> {
    this.#check();
    return walk(this.#root, opts);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#root = null;
    this.#onRelease(this);
  }

  #check(): void {
    if (this.#released) throw new TernError(DbErrorCode.closed, 'read snapshot already released');
  }
}

class MemoryBatch implements WriteBatch {
  #ops: Op[] = [];
  #bytes = 0;
  #done = false;
  readonly #apply: (ops: readonly Op[]) => void;

  constructor(apply: (ops: readonly Op[]) => void) {
    this.#apply = apply;
  }

  get size(): number {
    return this.#ops.length;
  }

  get byteSize(): number {
    return this.#bytes;
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.#check();
    checkKey(key);
    checkValue(value);
    this.#ops.push({ put: true, key: key.slice(), value: value.slice() });
    this.#bytes += key.length + value.length;
  }

  delete(key: Uint8Array): void {
    this.#check();
    checkKey(key);
    this.#ops.push({ put: false, key: key.slice() });
    this.#bytes += key.length;
  }

  async commit(): Promise<void> {
    this.#check();
    this.#done = true;
    const ops = this.#ops;
    this.#ops = [];
    this.#apply(ops);
  }

  #check(): void {
    if (this.#done) throw new TernError(DbErrorCode.closed, 'write batch already committed');
  }
}
