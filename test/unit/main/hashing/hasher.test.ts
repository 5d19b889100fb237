import { keccak_256 } from '@noble/hashes/sha3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { TernError } from '../../../../src/main/common/errors.js';
import { InlineKeccakHasher } from '../../../../src/main/hashing/inline.js';
import type { KeccakHasher } from '../../../../src/main/hashing/interface.js';
import { createKeccakPool, type KeccakTasks, PooledKeccakHasher } from '../../../../src/main/hashing/pooled.js';
import { packInputs } from '../../../../src/main/native/keccak.js';
import { inlinePool } from '../../../../src/main/pool/inline.js';
import type { RunOptions, TaskName, WorkerPool } from '../../../../src/main/pool/interface.js';
import * as keccakTasks from '../../../../src/workers/keccak.js';

/** Delegates to a pool and counts the tasks it is given. */
class CountingPool implements WorkerPool<KeccakTasks> {
  tasks = 0;
  constructor(readonly inner: WorkerPool<KeccakTasks>) {}
  get threads(): number {
    return this.inner.threads;
  }
  get capacity(): number {
    return this.inner.capacity;
  }
  get queueSize(): number {
    return this.inner.queueSize;
  }
  whenReady(): Promise<void> {
    return this.inner.whenReady();
  }
  run<K extends TaskName<KeccakTasks>>(name: K, input: KeccakTasks[K]['input'], opts?: RunOptions) {
    this.tasks++;
    return this.inner.run(name, input, opts);
  }
  runResult<K extends TaskName<KeccakTasks>>(name: K, input: KeccakTasks[K]['input'], opts?: RunOptions) {
    this.tasks++;
    return this.inner.runResult(name, input, opts);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const pools: WorkerPool<KeccakTasks>[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

function counted(pool: WorkerPool<KeccakTasks>): CountingPool {
  pools.push(pool);
  return new CountingPool(pool);
}

// Small minBlocksPerTask so that modest test batches take the split path too.
const MIN_BLOCKS = 256;

const IMPLEMENTATIONS: [string, () => { hasher: KeccakHasher; pool: CountingPool | undefined }][] = [
  ['inline', () => ({ hasher: new InlineKeccakHasher(), pool: undefined })],
  [
    'pooled over piscina',
    () => {
      const pool = counted(createKeccakPool({ threads: 2 }));
      return { hasher: new PooledKeccakHasher(pool, { minBlocksPerTask: MIN_BLOCKS }), pool };
    },
  ],
  [
    'pooled over the inline pool',
    () => {
      const pool = counted(inlinePool(keccakTasks, { maxQueue: 8 }));
      return { hasher: new PooledKeccakHasher(pool, { minBlocksPerTask: MIN_BLOCKS }), pool };
    },
  ],
];

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const EMPTY = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const ABC = '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45';

function patterned(n: number, seed: number, maxLen = 400): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const input = new Uint8Array((i * 53 + seed) % maxLen);
    for (let j = 0; j < input.length; j++) input[j] = (i * 7 + j * 13 + seed) & 255;
    out.push(input);
  }
  return out;
}

function expectDigests(actual: readonly Uint8Array[] | Uint8Array, inputs: readonly Uint8Array[]): void {
  const list = actual instanceof Uint8Array ? split(actual) : actual;
  expect(list.length).toBe(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    if (hex(list[i] as Uint8Array) !== hex(keccak_256(inputs[i] as Uint8Array))) {
      expect.fail(`digest ${i} of ${inputs.length} differs`);
    }
  }
}

function split(digests: Uint8Array): Uint8Array[] {
  return Array.from({ length: digests.length / 32 }, (_, i) => digests.subarray(32 * i, 32 * i + 32));
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TernError);
    return (err as TernError).code;
  }
  throw new Error('expected a rejection');
}

describe.each(IMPLEMENTATIONS)('KeccakHasher: %s', (_kind, make) => {
  it('hashes the known vectors, listed and packed', async () => {
    const { hasher } = make();
    expect((await hasher.hashBatch([new Uint8Array(0), text('abc')])).map(hex)).toEqual([EMPTY, ABC]);
    const { data, offsets } = packInputs([text('abc'), new Uint8Array(0)]);
    expect(hex(await hasher.hashPacked(data, offsets))).toBe(ABC + EMPTY);
  });

  it('returns nothing for an empty batch', async () => {
    const { hasher } = make();
    expect(await hasher.hashBatch([])).toEqual([]);
    expect((await hasher.hashPacked(new Uint8Array(0), Uint32Array.of(0))).length).toBe(0);
    expect((await hasher.hashPacked(new Uint8Array(0), new Uint32Array(0))).length).toBe(0);
  });

  it('hashes a large batch, split across tasks no more than one per thread', async () => {
    const { hasher, pool } = make();
    const inputs = patterned(5_000, 3);
    const before = pool?.tasks ?? 0;
    expectDigests(await hasher.hashBatch(inputs), inputs);
    if (pool !== undefined) expect(pool.tasks - before).toBe(pool.threads);
    const { data, offsets } = packInputs(inputs);
    const digests = await hasher.hashPacked(data, offsets);
    expectDigests(digests, inputs);
    expect(data.length).toBe(offsets[inputs.length]); // not transferred: the caller keeps its buffers
  });

  it('hashes a packed batch that is a window of a bigger buffer', async () => {
    const { hasher } = make();
    const inputs = patterned(3_000, 5);
    const packed = packInputs(inputs);
    const big = new Uint8Array(packed.data.length + 100);
    big.set(packed.data, 40);
    const window = big.subarray(10, 10 + packed.data.length + 60);
    const offsets = packed.offsets.map((o) => o + 30);
    expectDigests(await hasher.hashPacked(window, offsets), inputs);
    expectDigests(await hasher.hashPacked(window, offsets.subarray(100, 201)), inputs.slice(100, 200));
  });

  it('coalesces small concurrent requests into few tasks', async () => {
    const { hasher, pool } = make();
    const requests = Array.from({ length: 40 }, (_, i) => patterned(3, i, 100));
    const before = pool?.tasks ?? 0;
    const results = await Promise.all(
      requests.map((inputs, i) => {
        if (i % 2 === 0) return hasher.hashBatch(inputs);
        const { data, offsets } = packInputs(inputs);
        return hasher.hashPacked(data, offsets);
      }),
    );
    for (const [i, digests] of results.entries()) expectDigests(digests, requests[i] as Uint8Array[]);
    if (pool !== undefined) expect(pool.tasks - before).toBe(1);
  });

  it('hashes correctly when handed ownership of the packed buffers', async () => {
    const { hasher } = make();
    const inputs = patterned(1_000, 9);
    const given = packInputs(inputs);
    expectDigests(await hasher.hashPacked(given.data, given.offsets, { transfer: true }), inputs);
  });

  it('rejects malformed offsets with INVALID_OFFSETS', async () => {
    const { hasher } = make();
    expect(await codeOf(hasher.hashPacked(new Uint8Array(8), Uint32Array.of(0, 4, 2)))).toBe('INVALID_OFFSETS');
    expect(await codeOf(hasher.hashPacked(new Uint8Array(8), Uint32Array.of(0, 9)))).toBe('INVALID_OFFSETS');
  });

  it('rejects with ABORTED when aborted before or while waiting', async () => {
    const { hasher } = make();
    expect(await codeOf(hasher.hashBatch([text('abc')], { signal: AbortSignal.abort() }))).toBe('ABORTED');
    const ac = new AbortController();
    const aborted = hasher.hashBatch([text('x')], { signal: ac.signal });
    const other = hasher.hashBatch([text('abc')]);
    ac.abort();
    const outcome = await aborted.then(
      (d) => d.map(hex),
      (err: unknown) => (err as TernError).code,
    );
    // The inline hasher has already finished by the time abort() runs; a pooled one is still coalescing.
    expect(outcome === 'ABORTED' || (Array.isArray(outcome) && outcome.length === 1)).toBe(true);
    expect((await other).map(hex)).toEqual([ABC]);
  });
});

describe('PooledKeccakHasher', () => {
  it('runs a mid-sized request as one task and passes ownership through when told to', async () => {
    const pool = counted(inlinePool(keccakTasks));
    const hasher = new PooledKeccakHasher(pool, { minBlocksPerTask: 100 });
    const inputs = patterned(120, 2, 100); // 120 blocks: one task, not split
    const given = packInputs(inputs);
    expectDigests(await hasher.hashPacked(given.data, given.offsets, { transfer: true }), inputs);
    expect(pool.tasks).toBe(1);
    expect(given.data.buffer.byteLength).toBe(0); // transferred, as a thread hop would
    const kept = packInputs(inputs);
    expectDigests(await hasher.hashPacked(kept.data, kept.offsets), inputs);
    expect(kept.data.length).toBe(kept.offsets[inputs.length]);
  });

  it('reports the threads of its pool', () => {
    const pool = counted(createKeccakPool({ threads: 2 }));
    expect(new PooledKeccakHasher(pool).threads).toBe(2);
  });
});
