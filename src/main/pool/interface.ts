// The worker-pool contract shared by the pooled (piscina) and inline implementations, and the result union
// every task returns. Task modules live in src/workers/; a pool is typed by the module it runs.

import type { TaskReply, TaskResult } from '../../workers/task.js';
import { deserializeError } from '../common/errors.js';

// The result union and its transfer wrapper belong to the worker side (src/workers/task.ts), which task modules
// import without reaching into the pool.
export type { TaskReply, TaskResult } from '../../workers/task.js';

/** The function shape of a task: one input, a result (possibly wrapped for transfer), sync or async. */
export type TaskFn<I = never, O = unknown> = (
  input: I,
) => TaskReply<O> | TaskResult<O> | Promise<TaskReply<O> | TaskResult<O>>;

/** A task map: task name → input and output types. */
export type TaskMap = Record<string, { input: unknown; output: unknown }>;

type OutputOf<R> = Awaited<R> extends TaskReply<infer O> ? O : Awaited<R> extends TaskResult<infer O> ? O : never;

/** The task map of a task module (`typeof import('../../workers/x.js')`): every exported task function. */
export type TaskMapOf<Mod> = {
  [K in keyof Mod as K extends string
    ? Mod[K] extends (input: never) => unknown
      ? K
      : never
    : never]: Mod[K] extends (input: infer I) => infer R ? { input: I; output: OutputOf<R> } : never;
};

export type TaskName<M extends TaskMap> = keyof M & string;

export interface RunOptions {
  /** Aborts the task: a queued task is dropped, a running pooled task has its thread terminated (and replaced). */
  signal?: AbortSignal;
  /**
   * ArrayBuffers inside `input` to transfer instead of copy. Transferring detaches them: once the task starts (at
   * once when a thread is free) the caller's views read as length 0. List only buffers the caller owns outright (not a view into someone else's buffer, not a
   * Node Buffer from the shared pool); everything not listed is copied by structured clone, whole underlying
   * ArrayBuffer included, so send `view.slice()` rather than a small subarray of a big buffer.
   */
  transfer?: readonly ArrayBuffer[];
}

/**
 * A pool of threads running the tasks of one task module.
 *
 * Back-pressure: `run` never fails because the pool is busy. A pool admits up to `capacity` tasks (running plus
 * queued); further calls wait, in order, for a slot, and count in `queueSize`. Producers that should not even create
 * work while the pool is saturated `await pool.whenReady()` first.
 *
 * Ownership: from `run` until its promise settles the pool owns `input`; do not mutate it (queued tasks are posted to
 * their thread only when they start). Buffers in `opts.transfer` are detached by the time the task starts.
 */
export interface WorkerPool<M extends TaskMap> {
  /** Threads running tasks (the inline pool reports 1, the calling thread). */
  readonly threads: number;
  /** Tasks the pool holds at once, running plus queued; a `run` beyond this waits. */
  readonly capacity: number;
  /** Tasks submitted and not yet started, those waiting for a slot included. */
  readonly queueSize: number;
  /** Resolves when a `run` now would be admitted at once (or the pool is closed: `run` then rejects). */
  whenReady(): Promise<void>;
  /** Runs a task; resolves with its value or rejects with a TernError carrying the task's error code. */
  run<K extends TaskName<M>>(name: K, input: M[K]['input'], opts?: RunOptions): Promise<M[K]['output']>;
  /** Like `run`, but never rejects: pool errors (POOL_CLOSED, ABORTED, WORKER_FAILED) come back as `ok: false`. */
  runResult<K extends TaskName<M>>(
    name: K,
    input: M[K]['input'],
    opts?: RunOptions,
  ): Promise<TaskResult<M[K]['output']>>;
  /**
   * Stops accepting work: queued and new tasks reject with POOL_CLOSED; resolves once running tasks have finished
   * and the threads have exited. Idempotent.
   */
  close(): Promise<void>;
}

/** The minimal logger a pool writes to (pino-compatible). */
export interface PoolLogger {
  warn(obj: object, msg: string): void;
}

/** Error codes of the pool itself (tasks define their own). */
export const PoolErrorCode = {
  /** The pool was closed before the task started. */
  closed: 'POOL_CLOSED',
  /** The caller's signal aborted the task. */
  aborted: 'ABORTED',
  /** The task threw instead of returning a result, or its thread died. */
  workerFailed: 'WORKER_FAILED',
  /** No such task in the task module. */
  unknownTask: 'UNKNOWN_TASK',
} as const;

/** The value of a result, or the error it carries rethrown as a TernError. */
export function unwrap<T>(result: TaskResult<T>): T {
  if (result.ok) return result.value;
  throw deserializeError(result.error);
}
