// The inline WorkerPool: the same task functions, run on the calling thread one at a time, with the same result
// union, back-pressure, abort and close semantics as the pooled one, so tests and single-threaded setups share a path.
import type { SerializedError } from '../common/errors.js';
import {
  PoolErrorCode,
  type RunOptions,
  type TaskFn,
  type TaskMap,
  type TaskMapOf,
  type TaskName,
  type TaskResult,
  unwrap,
  type WorkerPool,
} from './interface.js';
import { abortedResult, closedResult, openReply } from './piscina.js';

export interface InlinePoolOptions {
  /** Tasks queued behind the running one before the pool is full (`whenReady` waits); default 1. */
  maxQueue?: number;
  /**
   * Pass inputs through structuredClone (honouring `transfer`) when a task starts, as a thread hop would, so
   * ownership bugs (using a buffer after giving it away) show up in single-threaded tests too. Default true.
   */
  isolate?: boolean;
}

export const inlinePoolDefaults = {
  maxQueue: 1,
  isolate: true,
} as const;

type AnyTask = TaskFn<unknown, unknown>;

interface Entry {
  readonly name: string;
  readonly input: unknown;
  readonly opts: RunOptions;
  readonly resolve: (result: TaskResult<unknown>) => void;
  readonly onAbort: () => void;
  /** Set while running: frees the slot (idempotent). */
  release: (() => void) | undefined;
}

/** An inline pool over a task module's exports: `inlinePool(await import('../../workers/keccak.js'))`. */
export function inlinePool<Mod extends object>(tasks: Mod, opts: InlinePoolOptions = {}): InlinePool<TaskMapOf<Mod>> {
  return new InlinePool<TaskMapOf<Mod>>(tasks, opts);
}

export class InlinePool<M extends TaskMap> implements WorkerPool<M> {
  readonly threads = 1;
  readonly capacity: number;
  readonly #tasks: object;
  readonly #isolate: boolean;
  #running = 0;
  readonly #waiting: Entry[] = [];
  #readyWaiters: (() => void)[] = [];
  #closed = false;
  #idle: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  constructor(tasks: object, opts: InlinePoolOptions = {}) {
    const maxQueue = opts.maxQueue ?? inlinePoolDefaults.maxQueue;
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError(`maxQueue must be ≥ 0: ${maxQueue}`);
    this.capacity = 1 + maxQueue;
    this.#tasks = tasks;
    this.#isolate = opts.isolate ?? inlinePoolDefaults.isolate;
  }

  get queueSize(): number {
    return this.#waiting.length;
  }

  whenReady(): Promise<void> {
    if (this.#closed || this.#hasRoom()) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  async run<K extends TaskName<M>>(name: K, input: M[K]['input'], opts?: RunOptions): Promise<M[K]['output']> {
    return unwrap(await this.runResult(name, input, opts));
  }

  runResult<K extends TaskName<M>>(
    name: K,
    input: M[K]['input'],
    opts: RunOptions = {},
  ): Promise<TaskResult<M[K]['output']>> {
    if (this.#closed) return Promise.resolve(closedResult());
    const { signal } = opts;
    if (signal?.aborted) return Promise.resolve(abortedResult(signal));
    return new Promise<TaskResult<unknown>>((resolve) => {
      let settled = false;
      const entry: Entry = {
        name,
        input,
        opts,
        resolve: (result) => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', entry.onAbort);
          resolve(result);
        },
        // Queued: dropped. Running: the caller gets ABORTED and the slot frees at once, as when the pooled one
        // terminates the thread; the call itself cannot be interrupted here, so it finishes unobserved.
        onAbort: () => {
          const i = this.#waiting.indexOf(entry);
          if (i >= 0) this.#waiting.splice(i, 1);
          entry.resolve(abortedResult(signal));
          entry.release?.();
        },
        release: undefined,
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.#waiting.push(entry);
      this.#pump();
    }) as Promise<TaskResult<M[K]['output']>>;
  }

  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#closed = true;
    for (const entry of this.#waiting.splice(0)) entry.resolve(closedResult());
    this.#wakeReadyWaiters();
    this.#closing = this.#running === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.#idle = resolve));
    return this.#closing;
  }

  #hasRoom(): boolean {
    return this.#running + this.#waiting.length < this.capacity;
  }

  #pump(): void {
    while (this.#running === 0 && this.#waiting.length > 0) {
      const entry = this.#waiting.shift() as Entry;
      void this.#execute(entry);
    }
    if (this.#hasRoom()) this.#wakeReadyWaiters();
  }

  async #execute(entry: Entry): Promise<void> {
    this.#running++;
    let released = false;
    entry.release = () => {
      if (released) return;
      released = true;
      this.#running--;
      if (this.#closed) {
        if (this.#running === 0) this.#idle?.();
      } else {
        this.#pump();
      }
    };
    try {
      entry.resolve(await this.#call(entry));
    } finally {
      entry.release();
    }
  }

  async #call(entry: Entry): Promise<TaskResult<unknown>> {
    const task: unknown = (this.#tasks as Record<string, unknown>)[entry.name];
    if (typeof task !== 'function') return failed(PoolErrorCode.unknownTask, `no task '${entry.name}' in this pool`);
    try {
      const transfer = entry.opts.transfer === undefined ? [] : [...new Set(entry.opts.transfer)];
      const input = this.#isolate ? structuredClone(entry.input, { transfer }) : entry.input;
      return openReply(await (task as AnyTask)(input));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return failed(PoolErrorCode.workerFailed, `task '${entry.name}' threw: ${message}`);
    }
  }

  #wakeReadyWaiters(): void {
    if (this.#readyWaiters.length === 0) return;
    const waiters = this.#readyWaiters;
    this.#readyWaiters = [];
    for (const wake of waiters) wake();
  }
}

function failed(code: string, message: string): { ok: false; error: SerializedError } {
  return { ok: false, error: { code, message } };
}
