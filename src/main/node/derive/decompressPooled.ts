// The pooled channel decompression (ChannelReaderDeps.decompress): a channel goes to a worker thread running
// src/workers/channels.ts, which inflates it synchronously there with the limit enforced while inflating, so the
// coordinator handles one message instead of a callback per 16 KiB of output. The inline twin is decompressChannel
// (decompress.ts) on the calling thread. A channel under `inlineBelow` compressed bytes is inflated here at once,
// synchronously, up to `inlineMaxOutput` bytes of output. Measured (2 shared cores, zlib and brotli, coordinator
// event-loop busy time per channel): inflating 0.2-5 KiB channels here costs 20-57 µs, handling the pool's round
// trip 55-75 µs (and 110-270 µs of latency); from ~10 KiB the pool costs the coordinator less. inlineMaxOutput
// bounds the try (a small zip bomb stops there and goes to the pool).
import type * as channelTasks from '../../../workers/channels.js';
import type { PoolLogger, TaskMapOf, WorkerPool } from '../../pool/interface.js';
import { PiscinaPool, type PiscinaPoolOptions } from '../../pool/piscina.js';
import {
  type ChannelDecompress,
  channelCompression,
  DECOMPRESS_UNAVAILABLE,
  type Decompressed,
  type DecompressOptions,
  inflateWhole,
} from '../../protocol/channel/decompress.js';
import { temporaryError } from './types.js';

export type ChannelTasks = TaskMapOf<typeof channelTasks>;

/** The task module's name under src/workers/. */
export const CHANNEL_WORKER = 'channels';

/** Derivation reads one channel at a time, so one thread serves it; more only help several pipelines at once. */
export const decompressPoolDefaults = { threads: 1 } as const;

/** A piscina pool running the channel task module. */
export function createDecompressPool(
  opts: PiscinaPoolOptions = {},
  deps: { logger?: PoolLogger } = {},
): WorkerPool<ChannelTasks> {
  return new PiscinaPool<ChannelTasks>(CHANNEL_WORKER, { threads: decompressPoolDefaults.threads, ...opts }, deps);
}

export interface PooledDecompressOptions {
  /** Channels shorter than this (compressed bytes) are first tried on the calling thread; 0 sends every one. */
  inlineBelow?: number;
  /** How much output such a try may inflate on the calling thread before the channel goes to the pool instead. */
  inlineMaxOutput?: number;
}

export const pooledDecompressDefaults = {
  inlineBelow: 4 * 1024,
  inlineMaxOutput: 32 * 1024,
} as const;

export class PooledChannelDecompressor {
  readonly #pool: WorkerPool<ChannelTasks>;
  readonly #inlineBelow: number;
  readonly #inlineMaxOutput: number;

  /** The pool is the caller's: it may be shared, and the caller closes it. */
  constructor(pool: WorkerPool<ChannelTasks>, opts: PooledDecompressOptions = {}) {
    this.#pool = pool;
    this.#inlineBelow = opts.inlineBelow ?? pooledDecompressDefaults.inlineBelow;
    this.#inlineMaxOutput = opts.inlineMaxOutput ?? pooledDecompressDefaults.inlineMaxOutput;
  }

  /** The ChannelReader hook (a bound function). */
  readonly decompress: ChannelDecompress = async (channel, opts) => this.#decompress(channel, opts);

  async #decompress(channel: Uint8Array, opts: DecompressOptions): Promise<Decompressed> {
    // Bad compression bytes throw BATCH_INVALID here, as inline, without a round trip.
    const algo = channelCompression(channel[0], opts.fjord);
    if (channel.length < this.#inlineBelow) {
      // A small whole channel costs less inflated here than a round trip; a corrupt one, or a small zip bomb, stops
      // at inlineMaxOutput and goes to the pool, which gives decompressChannel's answer for it.
      const data = inflateWhole(channel, algo, Math.min(opts.maxBytes, this.#inlineMaxOutput));
      if (data !== undefined) return { algo, data };
    }
    // A copy, transferred: the caller keeps its channel (the reader retries it when the pool could not run it).
    const copy = channel.slice();
    const result = await this.#pool.runResult(
      'decompressChannel',
      { channel: copy, fjord: opts.fjord, maxBytes: opts.maxBytes },
      { transfer: [copy.buffer as ArrayBuffer] },
    );
    if (result.ok) return result.value;
    // The task reports no error of the channel's own (the byte was checked above): the pool or its thread failed.
    throw temporaryError(
      DECOMPRESS_UNAVAILABLE,
      `channel decompression did not run (${result.error.code}): ${result.error.message}`,
    );
  }
}
