// Blob verification task module: piscina loads the compiled file in worker threads, the inline pool imports it.
import { checkPackedBlobs, type PackedBlobs } from '../main/protocol/blob/blobCheck.js';
import { fail, ok, reply, type TaskReply } from './task.js';

export interface VerifyBlobsOutput {
  /** One BlobStatus byte per blob, in order. */
  status: Uint8Array;
}

/** Checks packed blobs against their versioned hashes (and proofs, where given). */
export function verifyBlobs(input: PackedBlobs): TaskReply<VerifyBlobsOutput> {
  try {
    const status = checkPackedBlobs(input);
    return reply(ok({ status }), [status.buffer as ArrayBuffer]);
  } catch (err) {
    return reply(fail(err));
  }
}
