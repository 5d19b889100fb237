// The trie hasher on a worker thread (src/workers/trie.ts), so the executor runs block N+1 while N is hashed. One
// thread: commits build on each other's new nodes (kept as layers in the worker until their blocks are written), so
// they run in call order; piscina's queue is FIFO. Needs an LMDB directory the worker can open (not the memory
// engine: use InlineTrieHasher there).
import type * as trieTasks from '../../../workers/trie.js';
import type { PoolLogger, TaskMapOf, WorkerPool } from '../../pool/interface.js';
import { PiscinaPool } from '../../pool/piscina.js';
import type { StateDiff } from '../../primitives/trie/commitment.js';
import { encodeDiff, unpackCommitment } from '../../protocol/hasher/codec.js';
import {
  cacheBytes,
  type TrieCommit,
  type TrieHasher,
  type TrieHasherOptions,
  trieHasherDefaults,
} from './interface.js';

export type TrieTasks = TaskMapOf<typeof trieTasks>;
export const TRIE_WORKER = 'trie';

export interface PooledTrieHasherOptions extends TrieHasherOptions {
  /** The LMDB environment's directory (Database.paths.chaindata). */
  path: string;
}

export class PooledTrieHasher implements TrieHasher {
  readonly #pool: WorkerPool<TrieTasks>;
  readonly #path: string;
  readonly #cacheBytes: number;
  readonly #prefetch: boolean;

  get prefetching(): boolean {
    return this.#prefetch;
  }
  readonly #warm: boolean;

  get warming(): boolean {
    return this.#warm;
  }
  /** Layers released since the last task: sent with the next one (no round trip of their own). */
  #released: number[] = [];
  #nextLayer = 1;

  constructor(opts: PooledTrieHasherOptions, deps: { logger?: PoolLogger; pool?: WorkerPool<TrieTasks> } = {}) {
    this.#path = opts.path;
    this.#cacheBytes = cacheBytes(opts);
    this.#prefetch = opts.prefetch ?? trieHasherDefaults.prefetch;
    this.#warm = opts.warm ?? trieHasherDefaults.warm;
    // One thread, a deep queue: a block's prefetch and commit tasks never wait for admission.
    this.#pool = deps.pool ?? new PiscinaPool<TrieTasks>(TRIE_WORKER, { threads: 1, maxQueue: 256 }, deps);
  }

  #base(): { path: string; cacheBytes: number; release: number[] } {
    const release = this.#released;
    this.#released = [];
    return { path: this.#path, cacheBytes: this.#cacheBytes, release };
  }

  async commit(stateRoot: Uint8Array, diff: StateDiff, opts: { keep?: boolean } = {}): Promise<TrieCommit> {
    const layer = opts.keep === true ? this.#nextLayer++ : undefined;
    const packed = encodeDiff(diff);
    const out = await this.#pool.run(
      'commit',
      { ...this.#base(), stateRoot: stateRoot.slice(), diff: packed, layer: layer ?? null },
      { transfer: [packed.buffer as ArrayBuffer] },
    );
    return { ...unpackCommitment(out), layer };
  }

  prefetch(stateRoot: Uint8Array, addresses: readonly Uint8Array[]): void {
    if (this.#prefetch) this.#send('prefetch', stateRoot, addresses);
  }

  warm(stateRoot: Uint8Array, addresses: readonly Uint8Array[]): void {
    if (this.#warm) this.#send('warm', stateRoot, addresses);
  }

  /** A hint task: queued before the commit it helps (one thread, FIFO); its failure is nobody's. */
  #send(task: 'prefetch' | 'warm', stateRoot: Uint8Array, addresses: readonly Uint8Array[]): void {
    if (addresses.length === 0) return;
    const packed = new Uint8Array(20 * addresses.length);
    for (let i = 0; i < addresses.length; i++) packed.set((addresses[i] as Uint8Array).subarray(0, 20), 20 * i);
    this.#pool
      .run(
        task,
        { ...this.#base(), stateRoot: stateRoot.slice(), addresses: packed },
        { transfer: [packed.buffer as ArrayBuffer] },
      )
      .catch(() => {
        // A hint only.
      });
  }

  release(layer: number): void {
    this.#released.push(layer);
  }

  /** The worker's node cache figures and layers kept (tests, metrics). */
  stats(): Promise<TrieTasks['stats']['output']> {
    return this.#pool.run('stats', this.#base());
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
