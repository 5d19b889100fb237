// One suite over every ChannelDecompress: the inline reference (decompressChannel on this thread), the pooled one
// over piscina (every channel sent, and with the small-channel shortcut), and the pooled one over the inline pool
// (the task function on this thread). Results must equal the reference's for every channel, corrupt ones included.
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync, constants as zc } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import {
  type ChannelTasks,
  createDecompressPool,
  PooledChannelDecompressor,
} from '../../../../../src/main/node/derive/decompressPooled.js';
import { inlinePool } from '../../../../../src/main/pool/inline.js';
import type { WorkerPool } from '../../../../../src/main/pool/interface.js';
import {
  type ChannelDecompress,
  DECOMPRESS_UNAVAILABLE,
  type Decompressed,
  decompressChannel,
  decompressChannelSync,
  inflateWhole,
} from '../../../../../src/main/protocol/channel/decompress.js';
import * as channelTasks from '../../../../../src/workers/channels.js';

const pools: WorkerPool<ChannelTasks>[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});
const track = (pool: WorkerPool<ChannelTasks>) => {
  pools.push(pool);
  return pool;
};

const IMPLEMENTATIONS: [string, () => ChannelDecompress][] = [
  ['inline', () => decompressChannel],
  ['sync (worker side)', () => decompressChannelSync],
  [
    'pooled over piscina, every channel sent',
    () => new PooledChannelDecompressor(track(createDecompressPool({ threads: 1 })), { inlineBelow: 0 }).decompress,
  ],
  [
    'pooled over piscina, small channels inline',
    () => new PooledChannelDecompressor(track(createDecompressPool({ threads: 1 }))).decompress,
  ],
  [
    'pooled over the inline pool',
    () => new PooledChannelDecompressor(track(inlinePool(channelTasks)), { inlineBelow: 0 }).decompress,
  ],
];

/** Compressible but not trivially: RLP-ish records with random hashes. */
function payload(n: number, seed = 0): Uint8Array {
  const out = new Uint8Array(n);
  const rnd = randomBytes(n);
  for (let i = 0; i < n; i++) out[i] = i % 100 < 40 ? (rnd[i] as number) : (i * 7 + seed) & 0x3f;
  return out;
}
const zlib = (d: Uint8Array) => new Uint8Array(deflateSync(d));
const brotli = (d: Uint8Array) => {
  const body = brotliCompressSync(d, { params: { [zc.BROTLI_PARAM_QUALITY]: 5 } });
  const out = new Uint8Array(body.length + 1);
  out[0] = 1;
  out.set(body, 1);
  return out;
};

const FJORD = { fjord: true, maxBytes: 100_000_000 };
const BEDROCK = { fjord: false, maxBytes: 10_000_000 };

const view = (d: Decompressed) => ({
  algo: d.algo,
  length: d.data.length,
  hex: Buffer.from(d.data).toString('hex'),
  error: d.error !== undefined,
});

/** Channels that end badly: cut short, bytes flipped, junk appended. */
function damaged(channel: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const cut of [1, 2, 7, 100, Math.floor(channel.length / 2), channel.length - 5, channel.length - 1]) {
    if (cut > 0 && cut < channel.length) out.push(channel.slice(0, cut));
  }
  for (const at of [3, 20, Math.floor(channel.length / 3), channel.length - 3]) {
    if (at > 0 && at < channel.length) {
      const c = channel.slice();
      c[at] = (c[at] as number) ^ 0x5a;
      out.push(c);
    }
  }
  for (let i = 0; i < 24; i++) {
    const c = channel.slice(0, channel.length - ((i * 7919) % Math.max(1, channel.length >> 2)));
    const at = 2 + ((i * 104_729) % Math.max(1, c.length - 2));
    if (at < c.length) c[at] = (c[at] as number) ^ (1 << (i % 8));
    out.push(c);
  }
  const junk = new Uint8Array(channel.length + 9);
  junk.set(channel);
  junk.set(randomBytes(9), channel.length);
  out.push(junk);
  return out;
}

describe.each(IMPLEMENTATIONS)('ChannelDecompress (%s)', (_name, make) => {
  const made = make();
  // The reference throws a bad version byte synchronously; the channel reader awaits either inside its try.
  const decompress: ChannelDecompress = async (channel, opts) => made(channel, opts);

  it.each([
    ['zlib', zlib, BEDROCK],
    ['brotli', brotli, FJORD],
  ] as const)('decompresses %s channels of every size', async (algo, compress, opts) => {
    for (const n of [1, 500, 3000, 70_000, 1_500_000]) {
      const raw = payload(n, n);
      const out = await decompress(compress(raw), opts);
      expect(out.algo).toBe(algo);
      expect(out.error).toBeUndefined();
      expect(out.data.length).toBe(n);
      expect(Buffer.from(out.data).equals(Buffer.from(raw))).toBe(true);
    }
  });

  it('rejects with BATCH_INVALID: brotli before Fjord, an unknown version byte, an empty channel', async () => {
    const invalid = { code: 'BATCH_INVALID' };
    await expect(decompress(brotli(payload(100)), BEDROCK)).rejects.toMatchObject(invalid);
    await expect(decompress(Uint8Array.of(0x02, 1, 2, 3), FJORD)).rejects.toMatchObject(invalid);
    await expect(decompress(new Uint8Array(0), FJORD)).rejects.toMatchObject(invalid);
  });

  it('keeps exactly maxBytes of a zip bomb (zlib, the Bedrock limit)', async () => {
    const bomb = zlib(new Uint8Array(12_000_000));
    const out = await decompress(bomb, BEDROCK);
    expect(out.data.length).toBe(10_000_000);
    expect(out.data.every((b) => b === 0)).toBe(true);
  });

  it('keeps exactly maxBytes of a brotli bomb, and a stream of exactly maxBytes whole', async () => {
    const raw = payload(3_000_000, 3);
    const out = await decompress(brotli(raw), { fjord: true, maxBytes: 2_000_000 });
    expect(out.data.length).toBe(2_000_000);
    expect(Buffer.from(out.data).equals(Buffer.from(raw.subarray(0, 2_000_000)))).toBe(true);
    const exact = await decompress(brotli(raw.subarray(0, 5000)), { fjord: true, maxBytes: 5000 });
    expect(exact.data.length).toBe(5000);
    expect(exact.error).toBeUndefined();
  });

  it.each([
    ['zlib', zlib, BEDROCK],
    ['brotli', brotli, FJORD],
  ] as const)('gives the reference result for damaged %s channels', async (_algo, compress, opts) => {
    for (const n of [2000, 200_000]) {
      for (const channel of damaged(compress(payload(n, 1)))) {
        const want = await decompressChannel(channel, opts).then(view, (e: TernError) => e.code);
        const got = await decompress(channel, opts).then(view, (e: TernError) => e.code);
        expect(got).toEqual(want);
      }
    }
  });

  it('returns data that owns its buffer (transferable, not a view into a shared pool)', async () => {
    const out = await decompress(zlib(payload(100)), BEDROCK);
    expect(out.data.byteOffset).toBe(0);
    expect(out.data.buffer.byteLength).toBe(out.data.byteLength);
  });
});

describe('PooledChannelDecompressor', () => {
  it('leaves the caller its channel (sent as a copy)', async () => {
    const d = new PooledChannelDecompressor(track(createDecompressPool({ threads: 1 })), { inlineBelow: 0 });
    const channel = zlib(payload(50_000));
    const before = Buffer.from(channel);
    await d.decompress(channel, BEDROCK);
    expect(Buffer.from(channel).equals(before)).toBe(true);
  });

  it('rejects with DECOMPRESS_UNAVAILABLE (temporary), not BATCH_INVALID, when the pool cannot run it', async () => {
    const pool = createDecompressPool({ threads: 1 });
    await pool.close();
    const d = new PooledChannelDecompressor(pool, { inlineBelow: 0 });
    const err = await d.decompress(zlib(payload(100)), BEDROCK).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TernError);
    expect(err).toMatchObject({ code: DECOMPRESS_UNAVAILABLE, severity: 'temporary' });
    // A bad channel is still the channel's fault, found before the pool is asked.
    await expect(d.decompress(Uint8Array.of(0x02), BEDROCK)).rejects.toMatchObject({ code: 'BATCH_INVALID' });
  });

  it('sends a small channel that inflates past inlineMaxOutput to the pool, and a corrupt one', async () => {
    const sent: number[] = [];
    const inner = track(inlinePool(channelTasks));
    const counting: WorkerPool<ChannelTasks> = Object.assign(Object.create(inner) as WorkerPool<ChannelTasks>, {
      runResult: ((name, input, opts) => {
        sent.push(input.channel.length);
        return inner.runResult(name, input, opts);
      }) as WorkerPool<ChannelTasks>['runResult'],
    });
    const d = new PooledChannelDecompressor(counting, { inlineBelow: 4096, inlineMaxOutput: 64 * 1024 });
    const small = zlib(payload(1000));
    expect((await d.decompress(small, BEDROCK)).data.length).toBe(1000);
    expect(sent).toEqual([]);
    const bomb = zlib(new Uint8Array(1_000_000));
    expect(bomb.length).toBeLessThan(4096);
    expect((await d.decompress(bomb, BEDROCK)).data.length).toBe(1_000_000);
    const badHeader = Uint8Array.of(0x78, 0x00, 1, 2, 3);
    const out = await d.decompress(badHeader, BEDROCK);
    expect(out.error).toBeDefined();
    expect(view(out)).toEqual(view(await decompressChannel(badHeader, BEDROCK)));
    expect(sent).toEqual([bomb.length, badHeader.length]);
  });
});

describe('inflateWhole', () => {
  it('stops at the cap instead of inflating the rest', () => {
    const bomb = zlib(new Uint8Array(5_000_000));
    expect(inflateWhole(bomb, 'zlib', 1_000_000)).toBeUndefined();
    expect(inflateWhole(bomb, 'zlib', 5_000_000)?.length).toBe(5_000_000);
  });
});
