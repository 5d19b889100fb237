// The worker side of the pool contract: the result union every task returns and `reply`, which wraps a result so
// piscina transfers (not copies) its buffers back. Task modules import only this, primitives/, protocol/ and the
// native loader; the pool (src/main/pool/) hosts them and re-exports these types for callers.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { type SerializedError, serializeError } from '../main/primitives/errors.js';

/** What every task returns: a value, or an error as plain data (it has to survive a thread boundary). */
export type TaskResult<T> = { ok: true; value: T } | { ok: false; error: SerializedError };

declare const replyBrand: unique symbol;

/**
 * A task result wrapped so that piscina transfers (not copies) the result's buffers back to the caller.
 * Built by `reply()`; opaque everywhere else.
 */
export interface TaskReply<T> {
  readonly [replyBrand]: TaskResult<T>;
}

export function ok<T>(value: T): TaskResult<T> {
  return { ok: true, value };
}

export function fail(err: unknown): { ok: false; error: SerializedError } {
  return { ok: false, error: serializeError(err) };
}

/**
 * Wraps a task's result so piscina transfers `transfer` (buffers inside the result, owned by the task) back to the
 * caller instead of copying them. Only whole, non-shared ArrayBuffers may be listed.
 */
export function reply<T>(result: TaskResult<T>, transfer: readonly ArrayBuffer[] = []): TaskReply<T> {
  const envelope = { [transferableSymbol]: [...transfer], [valueSymbol]: result };
  return move(envelope) as unknown as TaskReply<T>;
}
