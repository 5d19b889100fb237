// The batch envelope inside a channel: batch_version ++ content (derivation.md "Batch Format"). Version 0 is a
// singular batch, version 1 a span batch (Delta); any other version, or malformed content, is invalid.
import { batchError } from './bytes.js';
import { decodeRawSpanBatch, encodeRawSpanBatch, type RawSpanBatch } from './rawSpanBatch.js';
import { decodeSingularBatch, encodeSingularBatch, type SingularBatch } from './singularBatch.js';

export const SINGULAR_BATCH_TYPE = 0;
export const SPAN_BATCH_TYPE = 1;

export type BatchData =
  | { readonly type: typeof SINGULAR_BATCH_TYPE; readonly batch: SingularBatch }
  | { readonly type: typeof SPAN_BATCH_TYPE; readonly batch: RawSpanBatch };

/** Decodes a typed batch (the bytes of one RLP string of the channel). Throws BATCH_INVALID. */
export function decodeBatchData(typed: Uint8Array): BatchData {
  if (typed.length === 0) batchError('batch too short');
  const content = typed.subarray(1);
  switch (typed[0]) {
    case SINGULAR_BATCH_TYPE:
      return { type: SINGULAR_BATCH_TYPE, batch: decodeSingularBatch(content) };
    case SPAN_BATCH_TYPE:
      return { type: SPAN_BATCH_TYPE, batch: decodeRawSpanBatch(content) };
    default:
      return batchError(`unrecognized batch type ${typed[0]}`);
  }
}

/** Encodes a typed batch (what ChannelOut.addBatch takes). */
export function encodeBatchData(b: BatchData): Uint8Array {
  const content = b.type === SINGULAR_BATCH_TYPE ? encodeSingularBatch(b.batch) : encodeRawSpanBatch(b.batch);
  const out = new Uint8Array(content.length + 1);
  out[0] = b.type;
  out.set(content, 1);
  return out;
}
