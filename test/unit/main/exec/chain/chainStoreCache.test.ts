// ChainStore's decoded reads through the database's block cache (--cache.database): hits, copies, and correctness
// when a side chain becomes canonical (setHead) and when block data is deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { readBlock, readHeader, readReceipts } from '../../../../../src/main/exec/chain/chainStore.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import * as chain from '../../../../../src/main/exec/db/chain.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { buildBlock, type EngineFixture, engineFixture, hex, pending, transfer } from '../engine/fixture.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

describe('ChainStore reads through the block cache', () => {
  let a: EngineFixture;
  let b: EngineFixture;
  const A: Uint8Array[] = [];
  const B: Uint8Array[] = [];

  beforeAll(async () => {
    a = await engineFixture();
    b = await engineFixture();
    // Chain A: two blocks with a transfer each. Chain B (same genesis): three blocks, other transfers.
    a.pool.txs = [pending(await transfer(0, `0x${'11'.repeat(20)}`, 1000n))];
    A.push(await buildBlock(a, a.genesisHash, 12n));
    a.pool.txs = [pending(await transfer(1, `0x${'11'.repeat(20)}`, 1000n))];
    A.push(await buildBlock(a, A[0] as Uint8Array, 24n));
    b.pool.txs = [pending(await transfer(0, `0x${'22'.repeat(20)}`, 5000n))];
    B.push(await buildBlock(b, b.genesisHash, 12n));
    b.pool.txs = [];
    B.push(await buildBlock(b, B[0] as Uint8Array, 24n));
    B.push(await buildBlock(b, B[1] as Uint8Array, 36n));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('serves repeated reads from the cache, each caller getting its own copy', () => {
    const cache = a.db.blockCache;
    const before = cache.stats();
    const first = a.store.blockByNumber(1n);
    const second = a.store.blockByNumber(1n);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    const afterBlocks = cache.stats();
    expect(afterBlocks.hits - before.hits).toBeGreaterThanOrEqual(1);
    // A caller scribbling on its copy does not reach the cache.
    (second as { transactions: Uint8Array[] }).transactions.length = 0;
    (second as { header: { gasUsed: bigint } }).header.gasUsed = 1n;
    expect(a.store.blockByNumber(1n)).toEqual(first);

    const h = a.store.headerByHash(A[1] as Uint8Array);
    h!.number = 99n;
    expect(a.store.headerByHash(A[1] as Uint8Array)?.number).toBe(2n);

    const r1 = a.store.receipts(1n, A[0] as Uint8Array);
    expect(r1).toHaveLength(1);
    r1![0]!.logs.push({ address: new Uint8Array(20), topics: [], data: new Uint8Array(0) });
    expect(a.store.receipts(1n, A[0] as Uint8Array)?.[0]?.logs).toHaveLength(0);
    expect(cache.stats().entries).toBeGreaterThanOrEqual(3);
  });

  it('after a side chain becomes canonical, reads by number give the new blocks and their receipts', async () => {
    // Warm the cache with chain A as seen by number, and through a snapshot as the RPC views read.
    const oldA1 = a.store.blockByNumber(1n);
    expect(hex(a.store.canonicalHash(1n) as Uint8Array)).toBe(hex(A[0] as Uint8Array));
    const snapBefore = a.db.snapshot();
    try {
      expect(readHeader(snapBefore, A[1] as Uint8Array)?.number).toBe(2n);

      const importer = await BlockImporter.create(a.store, new InlineSenderRecovery(), logger);
      for (const h of B) {
        const block = b.store.blockByHash(h);
        expect((await importer.insertBlock(block!)).status).toBe('imported');
      }
      // Read the side blocks (caching them) before they are canonical.
      for (const h of B) expect(a.store.blockByHash(h)).toEqual(b.store.blockByHash(h));
      // A view taken before the side chain was stored does not see it, cache or not.
      expect(readBlock(snapBefore, B[0] as Uint8Array)).toBeUndefined();
      expect(readHeader(snapBefore, B[2] as Uint8Array)).toBeUndefined();
      expect(readReceipts(snapBefore, 1n, B[0] as Uint8Array)).toBeUndefined();

      const change = await a.store.setHead(B[2] as Uint8Array);
      expect(change).toEqual({ unwound: 2, applied: 3 });

      for (let n = 1; n <= 3; n++) {
        const want = B[n - 1] as Uint8Array;
        expect(hex(a.store.canonicalHash(BigInt(n)) as Uint8Array)).toBe(hex(want));
        expect(a.store.blockByNumber(BigInt(n))).toEqual(b.store.blockByNumber(BigInt(n)));
        expect(a.store.headerByNumber(BigInt(n))).toEqual(b.store.headerByNumber(BigInt(n)));
        expect(a.store.receipts(BigInt(n), want)).toEqual(b.store.receipts(BigInt(n), want));
      }
      expect(hex(a.store.head().hash)).toBe(hex(B[2] as Uint8Array));
      // Block 1 of chain B carries B's transfer, not A's.
      expect(a.store.blockByNumber(1n)?.transactions).not.toEqual(oldA1?.transactions);
      // The old snapshot still reads chain A.
      expect(hex(chain.readCanonicalHash(snapBefore, 1) as Uint8Array)).toBe(hex(A[0] as Uint8Array));
      expect(readBlock(snapBefore, A[0] as Uint8Array)).toEqual(oldA1);
      // Chain A's blocks are still stored (now beside the chain) and still read right.
      expect(a.store.blockByHash(A[0] as Uint8Array)).toEqual(oldA1);
      expect(a.store.isCanonical(A[0] as Uint8Array)).toBe(false);
      // A block number absent from the chain reads nothing.
      expect(a.store.blockByNumber(4n)).toBeUndefined();
    } finally {
      snapBefore.release();
    }
  });

  it('never serves a block whose data was deleted, though the cache still holds it', async () => {
    const hash = A[1] as Uint8Array;
    expect(a.store.blockByHash(hash)?.header.number).toBe(2n);
    expect(a.store.receipts(2n, hash)).toBeDefined();
    const batch = a.db.kv.batch();
    chain.deleteBlock(batch, 2, hash);
    await batch.commit();
    expect(a.store.blockByHash(hash)).toBeUndefined();
    expect(a.store.headerByHash(hash)).toBeUndefined();
    expect(a.store.receipts(2n, hash)).toBeUndefined();
    // Receipts asked for under the wrong number are not served either.
    expect(a.store.receipts(2n, B[0] as Uint8Array)).toBeUndefined();
  });
});

describe('block cache size from --cache.database', () => {
  it('opens with the share given (0: no cache) and reads the same without one', async () => {
    const off = await openDatabase({ engine: 'memory', cacheMB: 0 });
    const on = await openDatabase({ engine: 'memory', cacheMB: 16 });
    try {
      expect(off.blockCache.maxBytes).toBe(0);
      expect(on.blockCache.maxBytes).toBe(16 * 1024 * 1024);
      const snap = on.snapshot();
      expect(snap.blockCache).toBe(on.blockCache);
      snap.release();
    } finally {
      await off.close();
      await on.close();
    }
  });
});
