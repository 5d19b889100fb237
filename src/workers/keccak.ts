// Keccak task module: piscina loads the compiled file in worker threads, the inline pool imports it directly.
// Every export with one input that returns a TaskResult/TaskReply is a task; checkPacked is shared validation.
import { threadId } from 'node:worker_threads';
import { keccak256Packed } from '../main/native/keccak.js';
import { TernError } from '../main/primitives/errors.js';
import { fail, ok, reply, type TaskReply, type TaskResult } from './task.js';

/** Inputs packed as the native boundary takes them: input i is data[offsets[i], offsets[i+1]). */
export interface KeccakBatchInput {
  data: Uint8Array;
  offsets: Uint32Array;
}

export interface KeccakBatchOutput {
  /** The digests concatenated, 32 bytes each. */
  digests: Uint8Array;
}

/** keccak-256 of every packed input. Errors: INVALID_INPUT, INVALID_OFFSETS. */
export function keccakBatch(input: KeccakBatchInput): TaskReply<KeccakBatchOutput> {
  try {
    checkPacked(input?.data, input?.offsets);
    const digests = owned(keccak256Packed(input.data, input.offsets));
    return reply(ok({ digests }), [digests.buffer as ArrayBuffer]);
  } catch (err) {
    return reply(fail(err));
  }
}

/** Diagnostic: which thread ran the task (0 is the main thread). Also the near-empty task of the latency bench. */
export function whoami(_input: null): TaskResult<{ threadId: number }> {
  return ok({ threadId });
}

/** Diagnostic: holds its thread for `ms` without blocking it (tests of queueing, abort and close). */
export async function sleep(input: { ms: number }): Promise<TaskResult<{ threadId: number }>> {
  await new Promise((resolve) => setTimeout(resolve, input.ms));
  return ok({ threadId });
}

/**
 * Throws unless `offsets` describes inputs inside `data`: non-decreasing, none past the end (the native module's
 * rule; the JS fallback does not check, so this runs first on every path).
 */
export function checkPacked(data: unknown, offsets: unknown): asserts data is Uint8Array {
  if (!(data instanceof Uint8Array)) throw new TernError('INVALID_INPUT', 'keccak batch: data must be a Uint8Array');
  if (!(offsets instanceof Uint32Array)) {
    throw new TernError('INVALID_INPUT', 'keccak batch: offsets must be a Uint32Array');
  }
  let prev = 0;
  for (let i = 0; i < offsets.length; i++) {
    const o = offsets[i] as number;
    if (o > data.length) {
      throw new TernError(
        'INVALID_OFFSETS',
        `keccak batch: offsets[${i}] = ${o} is past the end of data (${data.length})`,
      );
    }
    if (o < prev) throw new TernError('INVALID_OFFSETS', `keccak batch: offsets[${i}] = ${o} < offsets[${i - 1}]`);
    prev = o;
  }
}

/** The digests in a buffer of their own, so transferring it detaches nothing else. */
function owned(view: Uint8Array): Uint8Array {
  const whole = view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;
  return whole && !(view.buffer instanceof SharedArrayBuffer) ? view : view.slice();
}
