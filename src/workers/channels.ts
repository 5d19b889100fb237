// Channel decompression task module: piscina loads the compiled file in worker threads, the inline pool imports it.
import { type Decompressed, decompressChannelSync } from '../main/protocol/channel/decompress.js';
import { fail, ok, reply, type TaskReply } from './task.js';

export interface DecompressChannelInput {
  /** The channel's compressed data (version byte included); owned by the task (sent transferred). */
  channel: Uint8Array;
  fjord: boolean;
  maxBytes: number;
}

/** decompressChannel's result for one channel; the decompressed bytes go back transferred. */
export async function decompressChannel(input: DecompressChannelInput): Promise<TaskReply<Decompressed>> {
  try {
    const out = await decompressChannelSync(input.channel, { fjord: input.fjord, maxBytes: input.maxBytes });
    return reply(ok(out), [out.data.buffer as ArrayBuffer]);
  } catch (err) {
    return reply(fail(err));
  }
}
