// Channel decompression (derivation.md "Channel Reader", fjord/derivation.md "Brotli Channel Compression"): zlib,
// and from Fjord also brotli behind the 0x01 version byte, keeping at most MAX_RLP_BYTES_PER_CHANNEL bytes. Pure
// node:zlib, no logger or metrics, so the worker task module (src/workers/channels.ts) runs the same code as the
// coordinator. Two ways in, one result:
//   decompressChannel      streaming; stops once the limit is passed and keeps what came out before a corrupt or
//                          truncated part. This is the reference: every channel's result is defined by it.
//   decompressChannelSync  for worker threads (it blocks): one synchronous inflate (inflateWhole), capped by
//                          maxOutputLength so the limit holds while inflating; when the stream is whole and within
//                          the limit its output is the same bytes, and any other outcome (corrupt, over the limit)
//                          is redone by the reference, so results never differ.
import { brotliDecompressSync, createBrotliDecompress, createInflate, inflateSync, constants as zc } from 'node:zlib';
import { batchError } from '../batch/bytes.js';
import { CHANNEL_VERSION_BROTLI, type CompressionAlgo } from './channel.js';

export interface DecompressOptions {
  /** Brotli is accepted only from Fjord. */
  readonly fjord: boolean;
  /** Decompressed bytes kept (MAX_RLP_BYTES_PER_CHANNEL of the fork). */
  readonly maxBytes: number;
}

export interface Decompressed {
  readonly algo: CompressionAlgo;
  /** At most maxBytes; what decompressed before any corruption. Owns its whole ArrayBuffer (transferable). */
  readonly data: Uint8Array;
  /** Set when the stream was corrupt or truncated; the data before that point is still read. */
  readonly error?: string;
}

/**
 * How the channel reader has a channel decompressed (ChannelReaderDeps.decompress). It resolves with the result of
 * `decompressChannel` for that channel, rejects with BATCH_INVALID where that throws (the channel is dropped), and
 * rejects with DECOMPRESS_UNAVAILABLE (severity temporary) when it could not run at all (pool closed, worker died):
 * then the channel is kept and the pipeline step retried.
 */
export type ChannelDecompress = (channel: Uint8Array, opts: DecompressOptions) => Promise<Decompressed>;

/** The error code of a decompression that did not run; anything else a ChannelDecompress throws drops the channel. */
export const DECOMPRESS_UNAVAILABLE = 'DECOMPRESS_UNAVAILABLE';

/** Which compression a channel uses, from its first byte (RFC 1950 CM 8/15 is zlib; 0x01 is brotli). */
export function channelCompression(first: number | undefined, fjord: boolean): CompressionAlgo {
  if (first === undefined) return batchError('channel is empty');
  const cm = first & 0x0f;
  if (cm === 8 || cm === 15) return 'zlib';
  if (first === CHANNEL_VERSION_BROTLI) {
    if (!fjord) batchError('brotli-compressed channel before Fjord');
    return 'brotli';
  }
  return batchError(`unknown channel compression byte 0x${first.toString(16)}`);
}

/** The first `length` bytes of `chunks`, in one buffer of exactly that size. */
function gather(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let o = 0;
  for (const c of chunks) {
    if (o >= length) break;
    const n = Math.min(c.length, length - o);
    out.set(n === c.length ? c : c.subarray(0, n), o);
    o += n;
  }
  return out;
}

/**
 * Decompresses a channel as a stream, stopping once `maxBytes` are out (zip bombs cost nothing), and keeping the
 * output produced before a corrupt or truncated part. Throws BATCH_INVALID only for an unknown compression byte.
 * The inflating runs on libuv's thread pool; the calling thread handles one callback per 16 KiB of output.
 */
export function decompressChannel(channel: Uint8Array, opts: DecompressOptions): Promise<Decompressed> {
  const algo = channelCompression(channel[0], opts.fjord);
  const z =
    algo === 'zlib'
      ? createInflate({ finishFlush: zc.Z_SYNC_FLUSH })
      : createBrotliDecompress({ finishFlush: zc.BROTLI_OPERATION_FLUSH });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      z.removeAllListeners('data');
      z.destroy();
      const data = gather(chunks, Math.min(total, opts.maxBytes));
      resolve(error === undefined ? { algo, data } : { algo, data, error });
    };
    z.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total > opts.maxBytes) finish();
    });
    z.on('error', (err: Error) => finish(err.message));
    z.on('end', () => finish());
    z.end(algo === 'brotli' ? channel.subarray(1) : channel);
  });
}

/** Output chunk of the synchronous inflate: the most the limit can be overshot by before inflating stops. */
const SYNC_CHUNK = 256 * 1024;

/**
 * The whole decompressed stream, inflated synchronously, when it ends within `cap` bytes with no error (for such a
 * stream this is exactly `decompressChannel`'s data); undefined when it is corrupt or longer than `cap`, which
 * it stops inflating at (give or take 256 KiB). The result owns its whole ArrayBuffer. Blocks the calling thread
 * for up to `cap` bytes of output.
 */
export function inflateWhole(channel: Uint8Array, algo: CompressionAlgo, cap: number): Uint8Array | undefined {
  if (!(cap >= 1)) return undefined;
  const chunkSize = Math.max(zc.Z_MIN_CHUNK, Math.min(SYNC_CHUNK, cap));
  let out: Buffer;
  try {
    out =
      algo === 'zlib'
        ? inflateSync(channel, { finishFlush: zc.Z_SYNC_FLUSH, maxOutputLength: cap, chunkSize })
        : brotliDecompressSync(channel.subarray(1), {
            finishFlush: zc.BROTLI_OPERATION_FLUSH,
            maxOutputLength: cap,
            chunkSize,
          });
  } catch {
    return undefined;
  }
  // Node's result may be a view into a larger or shared buffer: copy it out so it can be transferred.
  return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength
    ? new Uint8Array(out.buffer, 0, out.byteLength)
    : new Uint8Array(out);
}

/**
 * `decompressChannel`'s result, computed synchronously where it can be (a whole stream within the limit: the
 * common case) and by `decompressChannel` otherwise. Blocks the calling thread: for worker threads only.
 */
export async function decompressChannelSync(channel: Uint8Array, opts: DecompressOptions): Promise<Decompressed> {
  const algo = channelCompression(channel[0], opts.fjord);
  const data = inflateWhole(channel, algo, opts.maxBytes);
  // Corrupt, or past the limit: which bytes count then is the stream's answer, so it gives it.
  return data === undefined ? decompressChannel(channel, opts) : { algo, data };
}
