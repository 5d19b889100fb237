import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  approxSize,
  BlockCache,
  blockCacheBytes,
  blockCacheDefaults,
  MAX_HEAP_SHARE,
} from '../../../../../src/main/exec/db/blockCache.js';
import { type Block, decodeBlock, encodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { decodeHeader, encodeHeader, type Header } from '../../../../../src/main/primitives/block/header.js';
import { decodeReceipt, encodeReceipt, type Receipt } from '../../../../../src/main/primitives/receipt/receipt.js';

const hash = (i: number): Uint8Array => {
  const h = new Uint8Array(32);
  new DataView(h.buffer).setUint32(28, i);
  return h;
};

describe('BlockCache', () => {
  it('hits what it holds, by kind and hash, and counts hits and misses', () => {
    const c = new BlockCache({ maxBytes: 1000 });
    c.set('header', hash(1), 'h1', 10);
    c.set('block', hash(1), 'b1', 10);
    expect(c.get('header', hash(1))).toBe('h1');
    expect(c.get('block', hash(1))).toBe('b1');
    expect(c.get('receipts', hash(1))).toBeUndefined();
    expect(c.get('header', hash(2))).toBeUndefined();
    // A hash given as a view into a larger buffer is the same key.
    const big = new Uint8Array(64);
    big.set(hash(1), 16);
    expect(c.get('header', big.subarray(16, 48))).toBe('h1');
    expect(c.stats()).toMatchObject({ entries: 2, bytes: 20, hits: 3, misses: 2, evictions: 0 });
  });

  it('evicts the least recently used entries once the bytes exceed the bound', () => {
    const c = new BlockCache({ maxBytes: 300 });
    for (let i = 0; i < 3; i++) c.set('block', hash(i), i, 100);
    expect(c.stats().bytes).toBe(300);
    c.get('block', hash(0)); // 0 is now the most recent; 1 the least
    c.set('block', hash(3), 3, 100);
    expect(c.get('block', hash(1))).toBeUndefined();
    expect([0, 2, 3].map((i) => c.get('block', hash(i)))).toEqual([0, 2, 3]);
    // One large entry pushes out as many as it needs.
    c.set('receipts', hash(9), 'big', 250);
    expect(c.stats()).toMatchObject({ entries: 1, bytes: 250, evictions: 4 });
    // Replacing an entry re-counts its bytes.
    c.set('receipts', hash(9), 'smaller', 50);
    expect(c.stats()).toMatchObject({ entries: 1, bytes: 50 });
  });

  it('does not keep an entry larger than the whole cache, and a size of 0 disables it', () => {
    const c = new BlockCache({ maxBytes: 100 });
    c.set('block', hash(1), 'x', 101);
    expect(c.get('block', hash(1))).toBeUndefined();
    const off = new BlockCache({ maxBytes: 0 });
    off.set('header', hash(1), 'x', 0);
    expect(off.get('header', hash(1))).toBeUndefined();
    expect(off.stats().entries).toBe(0);
    expect(() => new BlockCache({ maxBytes: -1 })).toThrow(RangeError);
    expect(new BlockCache().maxBytes).toBe(blockCacheDefaults.maxBytes);
  });

  it('delete drops every kind held for a hash; clear drops everything', () => {
    const c = new BlockCache({ maxBytes: 1000 });
    for (const kind of ['header', 'block', 'receipts'] as const) {
      c.set(kind, hash(1), kind, 10);
      c.set(kind, hash(2), kind, 10);
    }
    c.delete(hash(1));
    expect(c.get('header', hash(1))).toBeUndefined();
    expect(c.get('receipts', hash(1))).toBeUndefined();
    expect(c.get('block', hash(2))).toBe('block');
    expect(c.stats()).toMatchObject({ entries: 3, bytes: 30 });
    c.clear();
    expect(c.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });
});

describe('blockCacheBytes', () => {
  it('turns the --cache.database share into bytes, capped at a quarter of the heap limit', () => {
    const heap = 4096 * 1024 * 1024;
    expect(blockCacheBytes(512, heap)).toEqual({ maxBytes: 512 * 1024 * 1024, capped: false });
    expect(blockCacheBytes(2048, heap)).toEqual({ maxBytes: heap * MAX_HEAP_SHARE, capped: true });
    expect(blockCacheBytes(0, heap)).toEqual({ maxBytes: 0, capped: false });
  });
});

// ---- the size estimate against what V8 really takes --------------------------------------------------------------

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap bytes per object that `make` returns, with `n` of them alive (a forced GC before and after). */
function measure(n: number, make: (i: number) => unknown): number {
  const keep: unknown[] = new Array(n);
  gc();
  gc();
  const before = process.memoryUsage();
  for (let i = 0; i < n; i++) keep[i] = make(i);
  gc();
  gc();
  const after = process.memoryUsage();
  const bytes = after.heapUsed - before.heapUsed + (after.external - before.external);
  expect(keep.length).toBe(n);
  return bytes / n;
}

const header = (i: number): Header => ({
  parentHash: randomBytes(32),
  uncleHash: randomBytes(32),
  coinbase: randomBytes(20),
  stateRoot: randomBytes(32),
  transactionsRoot: randomBytes(32),
  receiptsRoot: randomBytes(32),
  logsBloom: randomBytes(256),
  difficulty: 0n,
  number: BigInt(1_000_000 + i),
  gasLimit: 30_000_000n,
  gasUsed: 12_345_678n,
  timestamp: 1_700_000_000n + BigInt(i),
  extraData: randomBytes(8),
  mixHash: randomBytes(32),
  nonce: new Uint8Array(8),
  baseFeePerGas: 1_000_000_000n,
  withdrawalsRoot: randomBytes(32),
  blobGasUsed: 0n,
  excessBlobGas: 0n,
  parentBeaconBlockRoot: randomBytes(32),
});

/** A typed (EIP-1559 shaped) transaction as it sits in a body: type byte then opaque RLP-ish bytes. */
const tx = (len: number): Uint8Array => Uint8Array.from([2, ...randomBytes(len - 1)]);

const receipt = (logs: number): Receipt => ({
  type: 2,
  status: 1,
  cumulativeGasUsed: 1_234_567n,
  logsBloom: randomBytes(256),
  logs: Array.from({ length: logs }, () => ({
    address: randomBytes(20),
    topics: [randomBytes(32), randomBytes(32), randomBytes(32)],
    data: randomBytes(64),
  })),
});

describe('approxSize', () => {
  // The estimate must stay within a factor of 1.5 of the measured heap (it sizes a cache, it is not an allocator).
  const within = (estimate: number, measured: number) => {
    expect(estimate / measured).toBeGreaterThan(1 / 1.5);
    expect(estimate / measured).toBeLessThan(1.5);
  };

  it('estimates a decoded header', () => {
    const rlp = encodeHeader(header(0));
    const measured = measure(10_000, () => decodeHeader(rlp));
    within(approxSize(decodeHeader(rlp)), measured);
  });

  it('estimates a decoded block with 150 transactions', () => {
    const block: Block = {
      header: header(1),
      transactions: Array.from({ length: 150 }, (_, i) => tx(110 + (i % 90))),
      uncles: [],
      withdrawals: [],
    };
    const rlp = encodeBlock(block);
    const measured = measure(500, () => decodeBlock(rlp));
    within(approxSize(decodeBlock(rlp)), measured);
  });

  it('estimates decoded receipts with logs', () => {
    const raws = Array.from({ length: 100 }, (_, i) => encodeReceipt(receipt(i % 4)));
    const measured = measure(150, () => raws.map((r) => decodeReceipt(r)));
    within(approxSize(raws.map((r) => decodeReceipt(r))), measured);
  });
});
