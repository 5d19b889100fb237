// The pooled KeccakHasher. A round trip to a worker costs ~34 µs, so every task should carry ≥ ~0.5 ms of hashing:
// small requests made in the same event-loop turn are coalesced into one task, large ones are split across threads.

import type * as keccakTasks from '../../workers/keccak.js';
import { checkPacked } from '../../workers/keccak.js';
import { TernError } from '../common/errors.js';
import { packInputs } from '../native/keccak.js';
import { PoolErrorCode, type PoolLogger, type RunOptions, type TaskMapOf, type WorkerPool } from '../pool/interface.js';
import { PiscinaPool, type PiscinaPoolOptions } from '../pool/piscina.js';
import { splitDigests } from './inline.js';
import type { HashOptions, HashPackedOptions, KeccakHasher } from './interface.js';

export type KeccakTasks = TaskMapOf<typeof keccakTasks>;

/** The task module's name under src/workers/. */
export const KECCAK_WORKER = 'keccak';

/** A piscina pool running the keccak task module. */
export function createKeccakPool(
  opts: PiscinaPoolOptions = {},
  deps: { logger?: PoolLogger } = {},
): WorkerPool<KeccakTasks> {
  return new PiscinaPool<KeccakTasks>(KECCAK_WORKER, opts, deps);
}

export interface PooledKeccakHasherOptions {
  /**
   * The least work a task carries, in keccak-f permutations (one per started 136-byte block of each input).
   * Requests below it are coalesced; requests of at least twice it are split, at most one piece per thread.
   * Default 2048: ~0.5 ms with the native module (the JS fallback is several times slower, so its tasks are larger).
   */
  minBlocksPerTask?: number;
}

export const pooledKeccakHasherDefaults = {
  minBlocksPerTask: 2048,
} as const;

const RATE = 136;

/** keccak-f permutations needed for an input of `len` bytes (padding always adds at least one byte). */
function blocksOf(len: number): number {
  return Math.floor(len / RATE) + 1;
}

/** A request waiting to be coalesced: either a list of inputs or a packed batch. */
interface Waiting {
  readonly inputs: readonly Uint8Array[] | undefined;
  readonly data: Uint8Array | undefined;
  readonly offsets: Uint32Array | undefined;
  readonly count: number;
  readonly bytes: number;
  readonly blocks: number;
  done: boolean;
  resolve(digests: Uint8Array): void;
  reject(err: unknown): void;
}

export class PooledKeccakHasher implements KeccakHasher {
  readonly #pool: WorkerPool<KeccakTasks>;
  readonly #minBlocks: number;
  #waiting: Waiting[] = [];
  #waitingBlocks = 0;
  #flushScheduled = false;

  /** The pool is the caller's: it may be shared, and the caller closes it. */
  constructor(pool: WorkerPool<KeccakTasks>, opts: PooledKeccakHasherOptions = {}) {
    this.#pool = pool;
    this.#minBlocks = Math.max(1, opts.minBlocksPerTask ?? pooledKeccakHasherDefaults.minBlocksPerTask);
  }

  get threads(): number {
    return this.#pool.threads;
  }

  async hashBatch(inputs: readonly Uint8Array[], opts: HashOptions = {}): Promise<Uint8Array[]> {
    throwIfAborted(opts.signal);
    if (inputs.length === 0) return [];
    const cost = new Float64Array(inputs.length);
    let blocks = 0;
    let bytes = 0;
    for (let i = 0; i < inputs.length; i++) {
      const len = (inputs[i] as Uint8Array).length;
      blocks += blocksOf(len);
      bytes += len;
      cost[i] = blocks;
    }
    if (blocks < this.#minBlocks) {
      const waiting = {
        inputs: inputs.slice(),
        data: undefined,
        offsets: undefined,
        count: inputs.length,
        bytes,
        blocks,
      };
      return splitDigests(await this.#coalesce(waiting, opts.signal));
    }
    const pieces = this.#cut(cost, blocks);
    const digests = await Promise.all(
      pieces.map(([a, b]) => {
        // packInputs allocates fresh buffers: ours to transfer.
        const packed = packInputs(a === 0 && b === inputs.length ? inputs : inputs.slice(a, b));
        return this.#run(packed.data, packed.offsets, opts.signal);
      }),
    );
    return digests.length === 1 ? splitDigests(digests[0] as Uint8Array) : digests.flatMap(splitDigests);
  }

  async hashPacked(data: Uint8Array, offsets: Uint32Array, opts: HashPackedOptions = {}): Promise<Uint8Array> {
    throwIfAborted(opts.signal);
    // Validated here too: splitting reads the offsets, and a bad batch should fail before anything is posted.
    checkPacked(data, offsets);
    const count = Math.max(offsets.length - 1, 0);
    if (count === 0) return new Uint8Array(0);
    const cost = new Float64Array(count);
    let blocks = 0;
    for (let i = 0; i < count; i++) {
      blocks += blocksOf((offsets[i + 1] as number) - (offsets[i] as number));
      cost[i] = blocks;
    }
    const bytes = (offsets[count] as number) - (offsets[0] as number);
    if (blocks < this.#minBlocks) {
      return this.#coalesce({ inputs: undefined, data, offsets, count, bytes, blocks }, opts.signal);
    }
    const pieces = this.#cut(cost, blocks);
    if (pieces.length === 1 && opts.transfer === true && ownsWhole(data) && ownsWhole(offsets)) {
      return this.#run(data, offsets, opts.signal);
    }
    const digests = await Promise.all(
      pieces.map(([a, b]) => {
        const piece = slicePacked(data, offsets, a, b);
        return this.#run(piece.data, piece.offsets, opts.signal);
      }),
    );
    return digests.length === 1 ? (digests[0] as Uint8Array) : concat(digests, 32 * count);
  }

  /** Runs one task over buffers this hasher owns (they are transferred) and returns its digests. */
  async #run(data: Uint8Array, offsets: Uint32Array, signal: AbortSignal | undefined): Promise<Uint8Array> {
    const opts: RunOptions = { transfer: [data.buffer as ArrayBuffer, offsets.buffer as ArrayBuffer] };
    if (signal !== undefined) opts.signal = signal;
    return (await this.#pool.run('keccakBatch', { data, offsets }, opts)).digests;
  }

  /** Input ranges [a, b) of about equal work, at least minBlocks each and at most one per thread. */
  #cut(cost: Float64Array, blocks: number): [number, number][] {
    const k = Math.max(1, Math.min(this.#pool.threads, Math.floor(blocks / this.#minBlocks)));
    const pieces: [number, number][] = [];
    let a = 0;
    for (let j = 1; j <= k; j++) {
      const target = (blocks * j) / k;
      let b = a;
      while (b < cost.length && ((cost[b] as number) <= target || j === k)) b++;
      if (b === a) continue;
      pieces.push([a, b]);
      a = b;
    }
    return pieces;
  }

  #coalesce(w: Omit<Waiting, 'done' | 'resolve' | 'reject'>, signal: AbortSignal | undefined): Promise<Uint8Array> {
    return new Promise<Uint8Array>((resolve, reject) => {
      const onAbort = (): void => {
        // The shared task still runs for the others; this request just stops waiting for it.
        entry.done = true;
        reject(new TernError(PoolErrorCode.aborted, 'hashing aborted'));
      };
      const entry: Waiting = {
        ...w,
        done: false,
        resolve: (digests) => {
          signal?.removeEventListener('abort', onAbort);
          if (!entry.done) resolve(digests);
          entry.done = true;
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          if (!entry.done) reject(err);
          entry.done = true;
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(entry);
      this.#waitingBlocks += w.blocks;
      if (this.#waitingBlocks >= this.#minBlocks) {
        this.#flush();
      } else if (!this.#flushScheduled) {
        // One event-loop turn is the most a small request waits for company.
        this.#flushScheduled = true;
        setImmediate(() => {
          this.#flushScheduled = false;
          this.#flush();
        });
      }
    });
  }

  #flush(): void {
    const batch = this.#waiting.filter((w) => !w.done);
    this.#waiting = [];
    this.#waitingBlocks = 0;
    if (batch.length === 0) return;
    let packed: { data: Uint8Array; offsets: Uint32Array };
    try {
      packed = packWaiting(batch);
    } catch (err) {
      // Runs from setImmediate: a throw here would be uncaught, so the requests get it instead.
      for (const w of batch) w.reject(err);
      return;
    }
    this.#run(packed.data, packed.offsets, undefined).then(
      (digests) => {
        let at = 0;
        for (const w of batch) {
          w.resolve(digests.subarray(32 * at, 32 * (at + w.count)));
          at += w.count;
        }
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    );
  }
}

/** Coalesced requests packed back to back into fresh buffers. */
function packWaiting(batch: readonly Waiting[]): { data: Uint8Array; offsets: Uint32Array } {
  let count = 0;
  let bytes = 0;
  for (const w of batch) {
    count += w.count;
    bytes += w.bytes;
  }
  const data = new Uint8Array(bytes);
  const offsets = new Uint32Array(count + 1);
  let k = 0;
  let pos = 0;
  for (const w of batch) {
    if (w.inputs !== undefined) {
      for (const input of w.inputs) {
        offsets[k++] = pos;
        data.set(input, pos);
        pos += input.length;
      }
    } else {
      const src = w.data as Uint8Array;
      const offs = w.offsets as Uint32Array;
      const base = offs[0] as number;
      for (let i = 0; i < w.count; i++) offsets[k++] = pos + (offs[i] as number) - base;
      data.set(src.subarray(base, offs[w.count] as number), pos);
      pos += w.bytes;
    }
  }
  offsets[count] = pos;
  return { data, offsets };
}

/** Inputs [a, b) of a packed batch in fresh buffers, offsets rebased to 0. */
function slicePacked(
  data: Uint8Array,
  offsets: Uint32Array,
  a: number,
  b: number,
): { data: Uint8Array; offsets: Uint32Array } {
  const base = offsets[a] as number;
  const rebased = offsets.slice(a, b + 1);
  if (base !== 0) for (let i = 0; i < rebased.length; i++) rebased[i] = (rebased[i] as number) - base;
  return { data: data.slice(base, offsets[b] as number), offsets: rebased };
}

/** True when the view is its whole, transferable ArrayBuffer. */
function ownsWhole(view: ArrayBufferView): boolean {
  return (
    !(view.buffer instanceof SharedArrayBuffer) && view.byteOffset === 0 && view.byteLength === view.buffer.byteLength
  );
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new TernError(PoolErrorCode.aborted, 'hashing aborted');
}
