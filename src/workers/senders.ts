// Sender-recovery task module: piscina loads the compiled file in worker threads, the inline pool imports it.
import { recoverSender } from '../main/protocol/senders/recover.js';
import { checkPacked } from './keccak.js';
import { fail, ok, reply, type TaskReply } from './task.js';

/** Raw transactions packed one after another: transaction i is data[offsets[i], offsets[i+1]). */
export interface RecoverSendersInput {
  data: Uint8Array;
  offsets: Uint32Array;
}

export interface RecoverSendersOutput {
  /** 20 bytes per transaction; zero where `errors` has an entry. */
  senders: Uint8Array;
  /** Transactions whose signature did not recover, by index, with the reason. */
  errors: Array<{ index: number; code: string; message: string }>;
}

export function recoverSenders(input: RecoverSendersInput): TaskReply<RecoverSendersOutput> {
  try {
    checkPacked(input?.data, input?.offsets);
    const n = Math.max(input.offsets.length - 1, 0);
    const senders = new Uint8Array(20 * n);
    const errors: RecoverSendersOutput['errors'] = [];
    for (let i = 0; i < n; i++) {
      try {
        senders.set(
          recoverSender(input.data.subarray(input.offsets[i] as number, input.offsets[i + 1] as number)),
          20 * i,
        );
      } catch (err) {
        const e = err as { code?: string; message?: string };
        errors.push({ index: i, code: e.code ?? 'TX_INVALID_SIGNATURE', message: e.message ?? String(err) });
      }
    }
    return reply(ok({ senders, errors }), [senders.buffer as ArrayBuffer]);
  } catch (err) {
    return reply(fail(err));
  }
}
