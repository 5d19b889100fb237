import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DbErrorCode, type KVStore } from '../../../../../src/main/common/db/interface.js';
import { MemoryStore } from '../../../../../src/main/common/db/memory.js';
import { BlockCache } from '../../../../../src/main/exec/db/blockCache.js';
import {
  deleteBlock,
  deleteCanonicalHash,
  deleteTxLookups,
  freezeBlocks,
  hasBody,
  hasHeader,
  hasReceipts,
  readAllHashes,
  readBodyRlp,
  readCanonicalHash,
  readCanonicalHeaderRlp,
  readChainConfig,
  readFinalizedBlockHash,
  readGenesisHash,
  readHeadBlockHash,
  readHeaderNumber,
  readHeaderRlp,
  readHeadHeaderHash,
  readLastPersisted,
  readReceiptsRlp,
  readSafeBlockHash,
  readTxIndexTail,
  readTxLookup,
  txIndexTail,
  unindexTransactions,
  writeBodyRlp,
  writeCanonicalHash,
  writeChainConfig,
  writeFinalizedBlockHash,
  writeGenesisHash,
  writeHeadBlockHash,
  writeHeaderRlp,
  writeHeadHeaderHash,
  writeLastPersisted,
  writeReceiptsRlp,
  writeSafeBlockHash,
  writeTxIndexTail,
  writeTxLookups,
} from '../../../../../src/main/exec/db/chain.js';
import { Freezer } from '../../../../../src/main/exec/db/freezer.js';
import { canonicalHashKey, headerKey, receiptsKey, TablePrefix } from '../../../../../src/main/exec/db/schema.js';
import {
  deleteAllStorage,
  iterateStorage,
  readAccount,
  readCode,
  readStorage,
  readTrieNode,
  writeAccount,
  writeCode,
  writeStorage,
  writeTrieNode,
} from '../../../../../src/main/exec/db/state.js';
import { expectCode } from '../../../../helpers/expectCode.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function store(): KVStore {
  const s = new MemoryStore();
  closers.push(() => s.close());
  return s;
}

function freezer(): Freezer {
  const d = mkdtempSync(join(tmpdir(), 'tern-chain-'));
  dirs.push(d);
  const f = new Freezer({ dir: join(d, 'chain') });
  closers.push(() => f.close());
  return f;
}

const hash = (n: number, fork = 0): Uint8Array => new Uint8Array(32).fill(n & 0xff).map((x, i) => (i === 0 ? fork : x));
const rlp = (what: string, n: number, fork = 0): Uint8Array => new TextEncoder().encode(`${what}:${n}:${fork}`);

/** Writes canonical blocks 0..to-1 (with header, body, receipts) and a side-chain block at each height in `forks`. */
async function chain(kv: KVStore, to: number, forks: number[] = []): Promise<void> {
  const b = kv.batch();
  for (let n = 0; n < to; n++) {
    writeHeaderRlp(b, n, hash(n), rlp('header', n));
    writeBodyRlp(b, n, hash(n), rlp('body', n));
    writeReceiptsRlp(b, n, hash(n), rlp('receipts', n));
    writeCanonicalHash(b, n, hash(n));
  }
  for (const n of forks) {
    writeHeaderRlp(b, n, hash(n, 1), rlp('header', n, 1));
    writeBodyRlp(b, n, hash(n, 1), rlp('body', n, 1));
    writeReceiptsRlp(b, n, hash(n, 1), rlp('receipts', n, 1));
  }
  writeHeadBlockHash(b, hash(to - 1));
  writeHeadHeaderHash(b, hash(to - 1));
  await b.commit();
}

describe('chain accessors', () => {
  it('store and read headers, bodies, receipts and the canonical chain', async () => {
    const kv = store();
    await chain(kv, 4, [2]);
    expect(readCanonicalHash(kv, 2)).toEqual(hash(2));
    expect(readCanonicalHash(kv, 9)).toBeUndefined();
    expect(readHeaderNumber(kv, hash(2, 1))).toBe(2);
    expect(readHeaderRlp(kv, 2, hash(2, 1))).toEqual(rlp('header', 2, 1));
    expect(readCanonicalHeaderRlp(kv, 2)).toEqual(rlp('header', 2));
    expect(readBodyRlp(kv, 3, hash(3))).toEqual(rlp('body', 3));
    expect(readReceiptsRlp(kv, 1, hash(1))).toEqual(rlp('receipts', 1));
    expect(hasHeader(kv, 1, hash(1))).toBe(true);
    expect(hasHeader(kv, 1, hash(2))).toBe(false);
    expect(hasBody(kv, 0, hash(0))).toBe(true);
    expect(hasReceipts(kv, 0, hash(0))).toBe(true);
    expect(readAllHashes(kv, 2)).toEqual([hash(2), hash(2, 1)]);
    expect(readAllHashes(kv, 1)).toEqual([hash(1)]);

    const b = kv.batch();
    deleteBlock(b, 2, hash(2, 1));
    deleteCanonicalHash(b, 3);
    await b.commit();
    expect(readHeaderRlp(kv, 2, hash(2, 1))).toBeUndefined();
    expect(readHeaderNumber(kv, hash(2, 1))).toBeUndefined();
    expect(readBodyRlp(kv, 2, hash(2, 1))).toBeUndefined();
    expect(readReceiptsRlp(kv, 2, hash(2, 1))).toBeUndefined();
    expect(readAllHashes(kv, 2)).toEqual([hash(2)]);
    expect(readCanonicalHash(kv, 3)).toBeUndefined();
  });

  it('lays keys out as the schema says (block-ordered tables)', async () => {
    const kv = store();
    await chain(kv, 3);
    const headers = [...kv.iterate({ prefix: Uint8Array.of(TablePrefix.header) })].map((e) => e.key);
    expect(headers).toEqual([headerKey(0, hash(0)), headerKey(1, hash(1)), headerKey(2, hash(2))]);
    expect(headers[1]!.length).toBe(41);
    expect(canonicalHashKey(258)).toEqual(Uint8Array.of(0x6e, 0, 0, 0, 0, 0, 0, 1, 2));
  });

  it('keeps head markers and metadata', async () => {
    const kv = store();
    expect(readHeadBlockHash(kv)).toBeUndefined();
    expect(readChainConfig(kv)).toBeUndefined();
    expect(readLastPersisted(kv)).toBeUndefined();
    const b = kv.batch();
    writeHeadHeaderHash(b, hash(9));
    writeHeadBlockHash(b, hash(8));
    writeSafeBlockHash(b, hash(7));
    writeFinalizedBlockHash(b, hash(6));
    writeGenesisHash(b, hash(0));
    writeChainConfig(b, '{"chainId":901,"optimism":{"eip1559Elasticity":6}}');
    writeLastPersisted(b, 8, hash(8));
    await b.commit();
    expect(readHeadHeaderHash(kv)).toEqual(hash(9));
    expect(readHeadBlockHash(kv)).toEqual(hash(8));
    expect(readSafeBlockHash(kv)).toEqual(hash(7));
    expect(readFinalizedBlockHash(kv)).toEqual(hash(6));
    expect(readGenesisHash(kv)).toEqual(hash(0));
    expect(JSON.parse(readChainConfig(kv)!)).toEqual({ chainId: 901, optimism: { eip1559Elasticity: 6 } });
    expect(readLastPersisted(kv)).toEqual({ number: 8, hash: hash(8) });
  });

  it('refuses malformed hashes and block numbers', async () => {
    const kv = store();
    const b = kv.batch();
    await expectCode(() => writeCanonicalHash(b, 1, new Uint8Array(31)), DbErrorCode.invalidArgument);
    await expectCode(() => readHeaderRlp(kv, 1, new Uint8Array(33)), DbErrorCode.invalidArgument);
    await expectCode(() => readCanonicalHash(kv, -1), DbErrorCode.invalidArgument);
    await expectCode(() => readCanonicalHash(kv, 1.5), DbErrorCode.invalidArgument);
    await expectCode(() => readCanonicalHash(kv, 2 ** 53), DbErrorCode.invalidArgument);
    expect(readCanonicalHash(kv, Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  describe('transaction lookup', () => {
    it('maps a transaction hash to its block and index', async () => {
      const kv = store();
      const b = kv.batch();
      writeTxLookups(b, 70_000, [hash(1), hash(2), hash(3)]);
      writeTxIndexTail(b, 5);
      await b.commit();
      expect(readTxLookup(kv, hash(3))).toEqual({ blockNumber: 70_000, index: 2 });
      expect(readTxLookup(kv, hash(4))).toBeUndefined();
      expect(readTxIndexTail(kv)).toBe(5);
      const d = kv.batch();
      deleteTxLookups(d, [hash(1)]);
      await d.commit();
      expect(readTxLookup(kv, hash(1))).toBeUndefined();
      expect(readTxLookup(kv, hash(2))).toEqual({ blockNumber: 70_000, index: 1 });
    });

    it('computes the tail from --history.transactions (0 = the whole chain)', () => {
      expect(txIndexTail(100, 0)).toBe(0);
      expect(txIndexTail(100, 10)).toBe(91);
      expect(txIndexTail(100, 1)).toBe(100);
      expect(txIndexTail(5, 2_350_000)).toBe(0);
    });

    it('unindexes the blocks that fall out of the history', async () => {
      const kv = store();
      await chain(kv, 20);
      const txs = (n: number) => [hash(100 + n), hash(200 + n)];
      const b = kv.batch();
      for (let n = 0; n < 20; n++) writeTxLookups(b, n, txs(n));
      writeTxIndexTail(b, 0);
      await b.commit();
      const txHashes = (body: Uint8Array, n: number) => {
        expect(body).toEqual(rlp('body', n));
        return txs(n);
      };
      expect(await unindexTransactions({ kv }, { head: 19, history: 0, txHashes })).toBe(0);
      expect(await unindexTransactions({ kv }, { head: 19, history: 5, txHashes, maxBlocks: 10 })).toBe(10);
      expect(readTxIndexTail(kv)).toBe(10);
      expect(await unindexTransactions({ kv }, { head: 19, history: 5, txHashes })).toBe(5);
      expect(readTxIndexTail(kv)).toBe(15);
      expect(await unindexTransactions({ kv }, { head: 19, history: 5, txHashes })).toBe(0);
      for (let n = 0; n < 15; n++) expect(readTxLookup(kv, hash(100 + n))).toBeUndefined();
      for (let n = 15; n < 20; n++) expect(readTxLookup(kv, hash(200 + n))).toEqual({ blockNumber: n, index: 1 });
    });
  });

  describe('freezing old blocks into the ancient store', () => {
    it('moves canonical blocks below the threshold and reads them back transparently', async () => {
      const kv = store();
      const ancients = freezer();
      await chain(kv, 30, [5, 25]);
      const before = kv.snapshot();
      expect(await freezeBlocks({ kv, ancients }, { threshold: 10 })).toBe(20);
      expect(ancients.ancients()).toBe(20);
      expect(await freezeBlocks({ kv, ancients }, { threshold: 10 })).toBe(0);

      const db = { kv, ancients };
      for (let n = 0; n < 30; n++) {
        expect(readCanonicalHash(db, n)).toEqual(hash(n));
        expect(readHeaderRlp(db, n, hash(n))).toEqual(rlp('header', n));
        expect(readBodyRlp(db, n, hash(n))).toEqual(rlp('body', n));
        expect(readReceiptsRlp(db, n, hash(n))).toEqual(rlp('receipts', n));
        expect(readCanonicalHeaderRlp(db, n)).toEqual(rlp('header', n));
        expect(hasHeader(db, n, hash(n))).toBe(true);
        expect(hasBody(db, n, hash(n))).toBe(true);
        expect(hasReceipts(db, n, hash(n))).toBe(true);
        expect(readHeaderNumber(db, hash(n))).toBe(n);
      }
      // Frozen blocks left the key-value store (block 0 stays); a wrong hash does not match a frozen block.
      for (let n = 1; n < 20; n++) {
        expect(kv.has(canonicalHashKey(n))).toBe(false);
        expect(kv.has(headerKey(n, hash(n)))).toBe(false);
        expect(kv.has(receiptsKey(n, hash(n)))).toBe(false);
        expect(readHeaderRlp(kv, n, hash(n))).toBeUndefined();
        expect(readHeaderRlp(db, n, hash(n, 1))).toBeUndefined();
      }
      expect(kv.has(canonicalHashKey(0))).toBe(true);
      expect(readHeaderRlp(kv, 0, hash(0))).toEqual(rlp('header', 0));
      // The side chain at a frozen height is gone; the one above the threshold stays.
      expect(readAllHashes(kv, 5)).toEqual([]);
      expect(readHeaderNumber(kv, hash(5, 1))).toBeUndefined();
      expect(readHeaderRlp(db, 25, hash(25, 1))).toEqual(rlp('header', 25, 1));
      // A snapshot taken before the move still reads everything from the key-value view alone.
      expect(readHeaderRlp(before, 7, hash(7))).toEqual(rlp('header', 7));
      expect(readHeaderRlp({ kv: before, ancients }, 7, hash(7))).toEqual(rlp('header', 7));
      before.release();
    });

    it('drops the side blocks it deletes from the block cache, keeping the frozen canonical ones', async () => {
      const kv = store();
      const ancients = freezer();
      await chain(kv, 30, [5, 25]);
      const blockCache = new BlockCache({ maxBytes: 1 << 20 });
      for (const h of [hash(5), hash(5, 1), hash(25, 1)]) blockCache.set('block', h, 'decoded', 100);
      expect(await freezeBlocks({ kv, ancients, blockCache }, { threshold: 10 })).toBe(20);
      expect(blockCache.get('block', hash(5, 1))).toBeUndefined();
      expect(blockCache.get('block', hash(5))).toBe('decoded');
      expect(blockCache.get('block', hash(25, 1))).toBe('decoded');
    });

    it('stops at the finalized block and moves at most maxBlocks per call', async () => {
      const kv = store();
      const ancients = freezer();
      await chain(kv, 50);
      const b = kv.batch();
      writeFinalizedBlockHash(b, hash(12));
      await b.commit();
      expect(await freezeBlocks({ kv, ancients }, { threshold: 5, maxBlocks: 4 })).toBe(4);
      expect(await freezeBlocks({ kv, ancients }, { threshold: 5, maxBlocks: 4 })).toBe(4);
      expect(await freezeBlocks({ kv, ancients }, { threshold: 5, maxBlocks: 100 })).toBe(5);
      expect(ancients.ancients()).toBe(13);
      expect(await freezeBlocks({ kv, ancients }, { threshold: 5 })).toBe(0);
      expect(readCanonicalHash({ kv, ancients }, 12)).toEqual(hash(12));
      expect(kv.has(canonicalHashKey(13))).toBe(true);
    });

    it('does nothing without a head, below the threshold or without an ancient store', async () => {
      const kv = store();
      const ancients = freezer();
      expect(await freezeBlocks({ kv, ancients })).toBe(0);
      await chain(kv, 100);
      expect(await freezeBlocks({ kv, ancients })).toBe(0);
      expect(await freezeBlocks({ kv, ancients: undefined }, { threshold: 1 })).toBe(0);
    });

    it('refuses to freeze a canonical block with missing parts, deleting nothing', async () => {
      const kv = store();
      const ancients = freezer();
      await chain(kv, 20);
      const b = kv.batch();
      b.delete(receiptsKey(3, hash(3)));
      await b.commit();
      await expectCode(freezeBlocks({ kv, ancients }, { threshold: 5 }), DbErrorCode.missingData);
      expect(ancients.ancients()).toBe(0);
      expect(readHeaderRlp(kv, 1, hash(1))).toEqual(rlp('header', 1));
    });
  });
});

describe('state accessors', () => {
  const addr = (n: number): Uint8Array => new Uint8Array(20).fill(n);
  const slot = (n: number): Uint8Array => new Uint8Array(32).fill(0).map((_, i) => (i === 31 ? n : 0));

  it('store accounts, storage, code and trie nodes', async () => {
    const kv = store();
    const b = kv.batch();
    writeAccount(b, addr(1), Uint8Array.of(1, 2, 3));
    for (const n of [3, 1, 2]) writeStorage(b, addr(1), slot(n), Uint8Array.of(n));
    writeStorage(b, addr(2), slot(1), Uint8Array.of(9));
    writeCode(b, hash(5), Uint8Array.of(0x60, 0x00));
    writeTrieNode(b, hash(6), Uint8Array.of(0xc0));
    await b.commit();
    expect(readAccount(kv, addr(1))).toEqual(Uint8Array.of(1, 2, 3));
    expect(readAccount(kv, addr(3))).toBeUndefined();
    expect(readStorage(kv, addr(1), slot(2))).toEqual(Uint8Array.of(2));
    expect(readCode(kv, hash(5))).toEqual(Uint8Array.of(0x60, 0x00));
    expect(readTrieNode(kv, hash(6))).toEqual(Uint8Array.of(0xc0));
    expect([...iterateStorage(kv, addr(1))].map((e) => e.slot[31])).toEqual([1, 2, 3]);

    const snap = kv.snapshot();
    const d = kv.batch();
    expect(deleteAllStorage(kv, d, addr(1))).toBe(3);
    await d.commit();
    expect([...iterateStorage(kv, addr(1))]).toEqual([]);
    expect(readStorage(kv, addr(2), slot(1))).toEqual(Uint8Array.of(9));
    // The trie reads nodes from a snapshot.
    expect(readTrieNode(snap, hash(6))).toEqual(Uint8Array.of(0xc0));
    expect([...iterateStorage(snap, addr(1))]).toHaveLength(3);
    snap.release();
    await expectCode(() => readAccount(kv, new Uint8Array(32)), DbErrorCode.invalidArgument);
  });
});
