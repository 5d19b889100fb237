// The pooled WorkerPool: piscina 5 threads, each hosting one task module from dist/src/workers/ through
// threadEntry.ts. The worker-side half of the transfer protocol (`reply`) is in src/workers/task.ts.
import { availableParallelism } from 'node:os';
import { Piscina, valueSymbol } from 'piscina';
import { type SerializedError, serializeError } from '../common/errors.js';
import { poolMetrics } from '../common/metrics/pool.js';
import {
  PoolErrorCode,
  type PoolLogger,
  type RunOptions,
  type TaskMap,
  type TaskName,
  type TaskReply,
  type TaskResult,
  unwrap,
  type WorkerPool,
} from './interface.js';
import type { PoolThreadData, TaskEnvelope } from './threadEntry.js';
import { threadEntryPath, workerPath } from './workerPath.js';

export interface PiscinaPoolOptions {
  /** Worker threads; default os.availableParallelism(). */
  threads?: number;
  /** Tasks queued beyond those running before `run` waits; default threads². */
  maxQueue?: number;
  /** Threads started with the pool and kept while it lives; default 1 (the others start on demand). */
  minThreads?: number;
  /** How long a thread beyond minThreads may sit idle before it exits; default 60 s. */
  idleTimeoutMs?: number;
  /**
   * Tasks handed to one thread at once (piscina's concurrentTasksPerWorker); default 1. A thread runs its tasks
   * back to back (they are synchronous), while with one at a time it waits for this thread's event loop to take its
   * result and hand it the next, which a busy thread (the executor awaiting settled chunks) does not turn.
   */
  tasksPerThread?: number;
}

export const piscinaPoolDefaults = {
  idleTimeoutMs: 60_000,
} as const;

export interface PiscinaPoolDeps {
  logger?: PoolLogger;
}

interface Parked {
  start(): void;
  cancel(result: { ok: false; error: SerializedError }): void;
}

/**
 * A WorkerPool over piscina. `worker` names the task module (`src/workers/<worker>.ts`, loaded compiled from dist/);
 * `M` is its task map, `TaskMapOf<typeof import('.../workers/<worker>.js')>`.
 */
export class PiscinaPool<M extends TaskMap> implements WorkerPool<M> {
  readonly threads: number;
  readonly capacity: number;
  /** The task module's name: the `pool` label of the pool metrics and profiles. */
  readonly name: string;
  readonly #piscina: Piscina;
  readonly #logger: PoolLogger | undefined;
  /** Tasks handed to piscina and not yet settled; never more than `capacity`. */
  #active = 0;
  /** Tasks waiting for a slot, in submission order. */
  readonly #parked: Parked[] = [];
  #readyWaiters: (() => void)[] = [];
  #closing: Promise<void> | undefined;

  constructor(worker: string, opts: PiscinaPoolOptions = {}, deps: PiscinaPoolDeps = {}) {
    const threads = opts.threads ?? availableParallelism();
    if (!Number.isInteger(threads) || threads < 1)
      throw new RangeError(`threads must be a positive integer: ${threads}`);
    const maxQueue = opts.maxQueue ?? threads * threads;
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError(`maxQueue must be ≥ 0: ${maxQueue}`);
    const minThreads = opts.minThreads ?? 1;
    if (!Number.isInteger(minThreads) || minThreads < 1 || minThreads > threads)
      throw new RangeError(`minThreads must be an integer from 1 to threads (${threads}): ${minThreads}`);
    const tasksPerThread = opts.tasksPerThread ?? 1;
    if (!Number.isInteger(tasksPerThread) || tasksPerThread < 1)
      throw new RangeError(`tasksPerThread must be a positive integer: ${tasksPerThread}`);
    this.threads = threads;
    this.capacity = threads + maxQueue;
    this.name = worker;
    this.#logger = deps.logger;
    // Admission is ours (run waits instead of failing), so piscina's own queue is left unbounded.
    this.#piscina = new Piscina({
      // Every thread loads threadEntry.js, which hosts the task module (and the profiler agent) and runs tasks by name.
      filename: threadEntryPath(),
      name: 'runTask',
      minThreads,
      maxThreads: threads,
      idleTimeout: opts.idleTimeoutMs ?? piscinaPoolDefaults.idleTimeoutMs,
      concurrentTasksPerWorker: tasksPerThread,
      recordTiming: false,
      workerData: { ternPool: worker, ternTasks: workerPath(worker) } satisfies PoolThreadData,
      // 'sync' parks idle threads in Atomics.wait and runs queued tasks without returning to the event loop, so
      // the profiler agent's messages would never be read; 'async' costs no measurable round-trip time here.
      atomics: 'async',
    });
    // Without a listener an 'error' event (a close timeout, a crash in an idle worker) would be thrown.
    this.#piscina.on('error', (err: unknown) => this.#logger?.warn({ err: serializeError(err) }, 'worker pool error'));
    poolMetrics().track(this);
  }

  /** Tasks handed to piscina and not yet settled. */
  get active(): number {
    return this.#active;
  }

  get queueSize(): number {
    return this.#parked.length + this.#piscina.queueSize;
  }

  whenReady(): Promise<void> {
    if (this.#closing !== undefined || this.#hasRoom()) return Promise.resolve();
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
    if (this.#closing !== undefined) return Promise.resolve(closedResult());
    const { signal } = opts;
    if (signal?.aborted) return Promise.resolve(abortedResult(signal));
    const submitted = performance.now();
    if (this.#hasRoom()) return this.#dispatch(name, input, opts, submitted);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const i = this.#parked.indexOf(entry);
        if (i >= 0) this.#parked.splice(i, 1);
        resolve(abortedResult(signal));
      };
      const entry: Parked = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#dispatch(name, input, opts, submitted));
        },
        cancel: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#parked.push(entry);
    });
  }

  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    for (const entry of this.#parked.splice(0)) entry.cancel(closedResult());
    // force: piscina drops its queued tasks (they reject, reported as POOL_CLOSED below) and waits for running ones.
    this.#closing = this.#piscina.close({ force: true });
    this.#wakeReadyWaiters();
    return this.#closing;
  }

  #hasRoom(): boolean {
    return this.#parked.length === 0 && this.#active < this.capacity;
  }

  async #dispatch<O>(name: string, input: unknown, opts: RunOptions, submitted: number): Promise<TaskResult<O>> {
    this.#active++;
    const metrics = poolMetrics();
    const started = performance.now();
    metrics.observeWait(this.name, name, (started - submitted) / 1000);
    let ok = false;
    try {
      // The worker returned a TaskReply; piscina has already unwrapped it to the TaskResult it carries.
      const envelope: TaskEnvelope = { name, input };
      const result = (await this.#piscina.run(envelope, {
        transferList: opts.transfer === undefined ? [] : [...new Set(opts.transfer)],
        signal: opts.signal ?? null,
      })) as TaskResult<O>;
      ok = result.ok;
      return result;
    } catch (err) {
      return this.#failure(name, err, opts.signal);
    } finally {
      metrics.observeRun(this.name, name, (performance.now() - started) / 1000, ok);
      this.#active--;
      this.#pump();
    }
  }

  #failure(name: string, err: unknown, signal: AbortSignal | undefined): { ok: false; error: SerializedError } {
    if (signal?.aborted) return abortedResult(signal);
    if (this.#closing !== undefined && err instanceof Error && err.name === 'AbortError') return closedResult();
    // Tasks report their own errors as results; anything thrown here means the task threw or its thread died.
    const error = serializeError(err);
    const code = error.code === 'INTERNAL' ? PoolErrorCode.workerFailed : error.code;
    return { ok: false, error: { code, message: `task '${name}' failed in its worker thread: ${error.message}` } };
  }

  #pump(): void {
    while (this.#parked.length > 0 && this.#active < this.capacity && this.#closing === undefined) {
      this.#parked.shift()?.start();
    }
    if (this.#hasRoom()) this.#wakeReadyWaiters();
  }

  #wakeReadyWaiters(): void {
    if (this.#readyWaiters.length === 0) return;
    const waiters = this.#readyWaiters;
    this.#readyWaiters = [];
    for (const wake of waiters) wake();
  }
}

export function closedResult(): { ok: false; error: SerializedError } {
  return { ok: false, error: { code: PoolErrorCode.closed, message: 'worker pool is closed; the task was not run' } };
}

export function abortedResult(signal: AbortSignal | undefined): { ok: false; error: SerializedError } {
  const reason: unknown = signal?.reason;
  const why = reason instanceof Error ? reason.message : reason === undefined ? '' : String(reason);
  return { ok: false, error: { code: PoolErrorCode.aborted, message: `task aborted${why ? `: ${why}` : ''}` } };
}

/** Caller side of `reply` for tasks run on the calling thread: the result inside the envelope. */
export function openReply<T>(returned: TaskReply<T> | TaskResult<T>): TaskResult<T> {
  if (typeof returned === 'object' && returned !== null && valueSymbol in returned) {
    return (returned as unknown as Record<symbol, TaskResult<T>>)[valueSymbol] as TaskResult<T>;
  }
  if (typeof returned === 'object' && returned !== null && typeof (returned as { ok?: unknown }).ok === 'boolean') {
    return returned as TaskResult<T>;
  }
  return {
    ok: false,
    error: { code: PoolErrorCode.workerFailed, message: 'task returned neither a TaskResult nor a TaskReply' },
  };
}
