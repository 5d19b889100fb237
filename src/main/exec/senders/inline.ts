// Sender recovery on the calling thread: the same task function the workers run.
import { type RecoverSendersOutput, recoverSenders } from '../../../workers/senders.js';
import { packInputs } from '../../native/keccak.js';
import { unwrap } from '../../pool/interface.js';
import { openReply } from '../../pool/piscina.js';
import type { SenderRecovery, SenderResult, SenderStream } from './interface.js';

export function unpackSenders(n: number, out: RecoverSendersOutput): SenderResult[] {
  const results: SenderResult[] = [];
  for (let i = 0; i < n; i++) results.push({ ok: true, address: out.senders.slice(20 * i, 20 * i + 20) });
  for (const e of out.errors) results[e.index] = { ok: false, code: e.code, message: e.message };
  return results;
}

export class InlineSenderRecovery implements SenderRecovery {
  async recover(txs: readonly Uint8Array[]): Promise<SenderResult[]> {
    const { data, offsets } = packInputs(txs);
    return unpackSenders(txs.length, unwrap(openReply(recoverSenders({ data, offsets }))));
  }

  /** On this thread nothing overlaps: one chunk. */
  recoverStream(txs: readonly Uint8Array[]): SenderStream {
    return { starts: [0], chunks: [this.recover(txs)] };
  }

  async close(): Promise<void> {}
}
