import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChannelDataSource } from '../../../../../src/main/node/derive/channelBank.js';
import { ChannelReader, type ChannelReaderDeps } from '../../../../../src/main/node/derive/channelReader.js';
import {
  type ChannelTasks,
  createDecompressPool,
  PooledChannelDecompressor,
} from '../../../../../src/main/node/derive/decompressPooled.js';
import { temporaryError } from '../../../../../src/main/node/derive/types.js';
import type { WorkerPool } from '../../../../../src/main/pool/interface.js';
import { rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import type { RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import { encodeBatchData } from '../../../../../src/main/protocol/batch/batchCodec.js';
import type { SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';
import {
  type ChannelDecompress,
  DECOMPRESS_UNAVAILABLE,
  decompressChannel,
} from '../../../../../src/main/protocol/channel/decompress.js';
import { l1, rollupConfig } from './helpers.js';

class Channels implements ChannelDataSource {
  queue: Uint8Array[] = [];
  constructor(public ref = l1(1)) {}
  origin() {
    return this.ref;
  }
  async nextData() {
    return this.queue.shift();
  }
}

const batch = (ts: number): SingularBatch => ({
  parentHash: new Uint8Array(32).fill(1),
  epochNum: 1,
  epochHash: new Uint8Array(32).fill(2),
  timestamp: ts,
  transactions: [Uint8Array.of(2, 0xc0)],
});
const item = (ts: number) => rlpEncode(encodeBatchData({ type: 0, batch: batch(ts) }));
const zlib = (...parts: Uint8Array[]) => new Uint8Array(deflateSync(Buffer.concat(parts)));
const brotli = (...parts: Uint8Array[]) => Uint8Array.from([1, ...brotliCompressSync(Buffer.concat(parts))]);

async function readAll(r: ChannelReader): Promise<number[]> {
  const out: number[] = [];
  for (;;) {
    const b = await r.nextBatch();
    if (b === undefined) return out;
    out.push(b.type === 'singular' ? b.batch.timestamp : -1);
  }
}

const FJORD = { regolith: 0, canyon: 0, delta: 0, ecotone: 0, fjord: 0 };

const pools: WorkerPool<ChannelTasks>[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

/** The reader's decompression: the default (inline), or the worker pool (every channel sent to it). */
const DECOMPRESSION: [string, () => ChannelReaderDeps][] = [
  ['inline', () => ({})],
  [
    'pooled',
    () => {
      const pool = createDecompressPool({ threads: 1 });
      pools.push(pool);
      return { decompress: new PooledChannelDecompressor(pool, { inlineBelow: 0 }).decompress };
    },
  ],
];

describe.each(DECOMPRESSION)('ChannelReader (%s decompression)', (_name, makeDeps) => {
  const deps = makeDeps();
  const newReader = (cfg: RollupConfig, src: ChannelDataSource) => new ChannelReader(cfg, src, deps);

  it('reads every batch of a zlib channel, then the next channel', async () => {
    const src = new Channels();
    src.queue.push(zlib(item(10), item(12)), zlib(item(14)));
    const r = newReader(rollupConfig(), src);
    expect(await readAll(r)).toEqual([10, 12, 14]);
  });

  it('accepts brotli only from Fjord', async () => {
    const before = new Channels();
    before.queue.push(brotli(item(10)), zlib(item(12)));
    const r1 = newReader(rollupConfig(), before);
    expect(await readAll(r1)).toEqual([12]);
    expect(r1.stats.channelsDropped).toBe(1);
    const after = new Channels();
    after.queue.push(brotli(item(10)));
    expect(await readAll(newReader(rollupConfig(FJORD), after))).toEqual([10]);
  });

  it('drops the rest of a channel at a malformed batch, keeping the ones before', async () => {
    const src = new Channels();
    src.queue.push(zlib(item(10), rlpEncode(Uint8Array.of(9, 1, 2)), item(12)), zlib(item(14)));
    const r = newReader(rollupConfig(), src);
    expect(await readAll(r)).toEqual([10, 14]);
    expect(r.stats.channelsDropped).toBe(1);
  });

  it('drops channels with an unknown compression byte', async () => {
    const src = new Channels();
    src.queue.push(Uint8Array.of(0x02, 1, 2, 3), zlib(item(12)));
    expect(await readAll(newReader(rollupConfig(), src))).toEqual([12]);
  });

  it('reads what decompressed before a truncated stream', async () => {
    const noise = new Uint8Array(randomBytes(100_000));
    const whole = zlib(item(10), rlpEncode(noise));
    expect(whole.length).toBeGreaterThan(50_000);
    const src = new Channels();
    src.queue.push(whole.subarray(0, whole.length - 2000));
    expect(await readAll(newReader(rollupConfig(), src))).toEqual([10]);
  });

  it('drops a span batch before Delta, alone', async () => {
    const span = rlpEncode(Uint8Array.of(1, 0, 0, ...new Uint8Array(40), 1, 0, 0, 0, 0));
    const src = new Channels();
    src.queue.push(zlib(span, item(12)));
    const r = newReader(rollupConfig(), src);
    expect(await readAll(r)).toEqual([12]);
    expect(r.stats.batchesDropped).toBe(1);
  });

  it('limits decompressed data to MAX_RLP_BYTES_PER_CHANNEL', async () => {
    const bomb = deflateSync(Buffer.alloc(12_000_000));
    const out = await decompressChannel(new Uint8Array(bomb), { fjord: false, maxBytes: 10_000_000 });
    expect(out.data.length).toBe(10_000_000);
    // A batch that ends past the limit is not read; the ones inside it are.
    const pad = rlpEncode(new Uint8Array(9_999_000));
    const src = new Channels();
    src.queue.push(zlib(item(10), pad, item(12)));
    const r = newReader(rollupConfig(), src);
    expect(await readAll(r)).toEqual([10]);
    expect(r.stats.channelsDropped).toBe(1);
  });

  it('flushChannel drops the rest of the current channel', async () => {
    const src = new Channels();
    src.queue.push(zlib(item(10), item(12)), zlib(item(14)));
    const r = newReader(rollupConfig(), src);
    const first = await r.nextBatch();
    expect(first?.type).toBe('singular');
    r.flushChannel();
    expect(await readAll(r)).toEqual([14]);
  });
});

describe('ChannelReader with a decompression that could not run', () => {
  it('keeps the channel and retries it on the next call, counting no drop', async () => {
    let failures = 1;
    const flaky: ChannelDecompress = async (channel, opts) => {
      if (failures-- > 0) throw temporaryError(DECOMPRESS_UNAVAILABLE, 'worker pool is closed');
      return decompressChannel(channel, opts);
    };
    const src = new Channels();
    src.queue.push(zlib(item(10), item(12)), zlib(item(14)));
    const r = new ChannelReader(rollupConfig(), src, { decompress: flaky });
    await expect(r.nextBatch()).rejects.toMatchObject({ code: DECOMPRESS_UNAVAILABLE, severity: 'temporary' });
    expect(await readAll(r)).toEqual([10, 12, 14]);
    expect(r.stats.channelsDropped).toBe(0);
  });

  it('forgets the kept channel on reset', async () => {
    const src = new Channels();
    src.queue.push(zlib(item(10)), zlib(item(14)));
    let fail = true;
    const r = new ChannelReader(rollupConfig(), src, {
      decompress: async (channel, opts) => {
        if (fail) throw temporaryError(DECOMPRESS_UNAVAILABLE, 'worker pool is closed');
        return decompressChannel(channel, opts);
      },
    });
    await expect(r.nextBatch()).rejects.toThrow(/closed/);
    fail = false;
    r.reset();
    expect(await readAll(r)).toEqual([14]);
  });
});
