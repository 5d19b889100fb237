// Imports the execution-apis chain (20 Cancun blocks: transfers, contract creations, logs, blob transactions,
// withdrawals) on top of its genesis: every header, receipt root, bloom, gas figure and state root must match.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter, InvalidBlockError } from '../../../../../src/main/exec/chain/importer.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { readTrieNode } from '../../../../../src/main/exec/db/state.js';
import { InlineTrieHasher } from '../../../../../src/main/exec/hasher/inline.js';
import type { TrieHasher } from '../../../../../src/main/exec/hasher/interface.js';
import { PooledTrieHasher } from '../../../../../src/main/exec/hasher/pooled.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { decodeBlock, encodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const TESTS = join(FIXTURES, 'execution-apis/tests');
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const logger = createLogger({ level: 'silent', format: 'json' }).logger;

describe('block import', () => {
  it('imports the execution-apis chain to its last block', async () => {
    const db = await openDatabase({ engine: 'memory' });
    const store = new ChainStore(db);
    await store.initGenesis(parseGenesis(JSON.parse(readFileSync(join(TESTS, 'genesis.json'), 'utf8'))));
    const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger);
    const blocks = [...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))].map(decodeBlock);
    for (const block of blocks) {
      const r = await importer.importBlock(block);
      expect(r.status).toBe('imported');
    }
    const last = blocks[blocks.length - 1] as (typeof blocks)[number];
    expect(hex(store.head().hash)).toBe(hex(headerHash(last.header)));
    expect(hex(encodeBlock(store.blockByNumber(last.header.number) as never))).toBe(hex(encodeBlock(last)));
    // Importing a known block again is a no-op.
    expect((await importer.importBlock(last)).status).toBe('known');
    await db.close();
  });

  it('rejects a block with a wrong state root and keeps the head', async () => {
    const db = await openDatabase({ engine: 'memory' });
    const store = new ChainStore(db);
    const genesis = await store.initGenesis(
      parseGenesis(JSON.parse(readFileSync(join(TESTS, 'genesis.json'), 'utf8'))),
    );
    const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger);
    const first = decodeBlock([...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))][0] as Uint8Array);
    const bad = { ...first, header: { ...first.header, stateRoot: new Uint8Array(32) } };
    await expect(importer.importBlock(bad)).rejects.toThrow(/block 1 .* is invalid: state root mismatch/);
    expect(hex(store.head().hash)).toBe(hex(genesis.hash));
    await db.close();
  });

  it("newPayload with the hasher reading the block's accounts while it executes: same roots; a wrong root is still rejected", async () => {
    const db = await openDatabase({ engine: 'memory' });
    const store = new ChainStore(db);
    const genesis = await store.initGenesis(
      parseGenesis(JSON.parse(readFileSync(join(TESTS, 'genesis.json'), 'utf8'))),
    );
    // The inline hasher, warming as a hasher with its own thread does (on this thread here, so it can be watched).
    const inner = new InlineTrieHasher({ prefetch: false }, { db: db.kv });
    const warmed: string[] = [];
    let read = 0;
    const hasher: TrieHasher = {
      prefetching: false,
      warming: true,
      warm(root, addresses) {
        warmed.push(...addresses.map(hex));
        const snap = db.kv.snapshot();
        try {
          read += inner.core.warm({ get: (h) => readTrieNode(snap, h) }, root, addresses);
        } finally {
          snap.release();
        }
      },
      commit: (root, diff, opts) => inner.commit(root, diff, opts),
      prefetch: () => {},
      release: (layer) => inner.release(layer),
      close: () => inner.close(),
    };
    const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger, { hasher });
    const blocks = [...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))].map(decodeBlock);
    const [first, second] = blocks as [(typeof blocks)[number], (typeof blocks)[number]];
    // Block 2 with a wrong state root: rejected, nothing of it stored, the head stays.
    expect((await importer.insertBlock(first)).status).toBe('imported');
    await importer.setHead(headerHash(first.header));
    const bad = { ...second, header: { ...second.header, stateRoot: new Uint8Array(32) } };
    await expect(importer.insertBlock(bad)).rejects.toThrow(/block 2 .* is invalid: state root mismatch/);
    expect(store.headerByHash(headerHash(bad.header))).toBeUndefined();
    expect(hex(store.head().hash)).toBe(hex(headerHash(first.header)));
    for (const block of blocks.slice(1)) {
      expect((await importer.insertBlock(block, { defer: true })).status).toBe('imported');
      await importer.setHead(headerHash(block.header));
    }
    const last = blocks[blocks.length - 1] as (typeof blocks)[number];
    expect(hex(store.head().header.stateRoot)).toBe(hex(last.header.stateRoot));
    expect(hex(store.head().hash)).not.toBe(hex(genesis.hash));
    // Every block's fee recipient was read ahead, and the genesis-funded sender of block 1's transactions.
    for (const block of blocks) expect(warmed).toContain(hex(block.header.coinbase));
    expect(warmed).toContain('0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f');
    expect(read).toBeGreaterThan(blocks.length);
    await db.close();
  });

  it('pipelines writes: blocks execute while earlier ones are written, a bad block leaves the earlier ones', async () => {
    const db = await openDatabase({ engine: 'memory' });
    const store = new ChainStore(db);
    await store.initGenesis(parseGenesis(JSON.parse(readFileSync(join(TESTS, 'genesis.json'), 'utf8'))));
    const senders = new InlineSenderRecovery();
    const importer = await BlockImporter.create(store, senders, logger);
    const blocks = [...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))].map(decodeBlock);
    const half = Math.floor(blocks.length / 2);
    for (const block of blocks.slice(0, half)) {
      const r = await importer.importBlock(block, { pipeline: true, senders: senders.recover(block.transactions) });
      expect(r.status).toBe('imported');
    }
    // A block with a wrong state root: its root is checked while the next block would run, so settle() reports it;
    // the queued writes before it still land.
    const next = blocks[half] as (typeof blocks)[number];
    const bad = { ...next, header: { ...next.header, stateRoot: new Uint8Array(32) } };
    await importer.importBlock(bad, { pipeline: true });
    await expect(importer.settle()).rejects.toThrow(/state root mismatch/);
    await importer.settle();
    const before = blocks[half - 1] as (typeof blocks)[number];
    expect(hex(store.head().hash)).toBe(hex(headerHash(before.header)));
    // The rest imports (the overlay was dropped with the bad block and rebuilt from the database).
    for (const block of blocks.slice(half)) {
      expect((await importer.importBlock(block, { pipeline: true })).status).toBe('imported');
    }
    await importer.settle();
    const last = blocks[blocks.length - 1] as (typeof blocks)[number];
    expect(hex(store.head().hash)).toBe(hex(headerHash(last.header)));
    // Without pipelining the same importer still answers, and a known block is a no-op.
    expect((await importer.importBlock(last)).status).toBe('known');
    await db.close();
  });
});

describe.each([
  ['inline', (_path: string, db: { kv: never }) => new InlineTrieHasher({ cacheMB: 1 }, { db: db.kv })],
  ['pooled', (path: string) => new PooledTrieHasher({ path, cacheMB: 1 })],
] as Array<[string, (path: string, db: never) => TrieHasher]>)(
  'pipelined block import (%s trie hasher)',
  (_name, make) => {
    const blocks = [...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))].map(decodeBlock);

    async function setUp() {
      const datadir = mkdtempSync(join(tmpdir(), 'tern-importer-'));
      const db = await openDatabase({ datadir });
      const store = new ChainStore(db);
      const genesis = await store.initGenesis(
        parseGenesis(JSON.parse(readFileSync(join(TESTS, 'genesis.json'), 'utf8'))),
      );
      const hasher = make(db.paths?.chaindata as string, db as never);
      const senders = new InlineSenderRecovery();
      const importer = await BlockImporter.create(store, senders, logger, { hasher });
      const done = async () => {
        await hasher.close();
        await db.close();
        rmSync(datadir, { recursive: true, force: true });
      };
      return { store, genesis, importer, senders, done };
    }

    it('imports the chain with each block hashed while the next executes', async () => {
      const { store, importer, senders, done } = await setUp();
      try {
        for (const block of blocks) {
          const r = await importer.importBlock(block, { pipeline: true, senders: senders.recover(block.transactions) });
          expect(r.status).toBe('imported');
        }
        await importer.settle();
        const last = blocks[blocks.length - 1] as (typeof blocks)[number];
        expect(hex(store.head().hash)).toBe(hex(headerHash(last.header)));
        expect(hex(store.blockByNumber(last.header.number)?.header.stateRoot as Uint8Array)).toBe(
          hex(last.header.stateRoot),
        );
      } finally {
        await done();
      }
    });

    it('rejects block N with a wrong state root while N+1 executes: N+1 is not written, the head stays at N-1', async () => {
      const { store, importer, done } = await setUp();
      try {
        const n = 5;
        for (const block of blocks.slice(0, n - 1)) await importer.importBlock(block, { pipeline: true });
        const orig = blocks[n - 1] as (typeof blocks)[number];
        const bad = { ...orig, header: { ...orig.header, stateRoot: new Uint8Array(32) } };
        // N itself returns: its root is still on the hasher.
        expect((await importer.importBlock(bad, { pipeline: true })).status).toBe('imported');
        // N+1 (whose parent hash is that of the bad header) executes, then N's check fails and is what is reported.
        const child = blocks[n] as (typeof blocks)[number];
        const next = { ...child, header: { ...child.header, parentHash: headerHash(bad.header) } };
        const err = await importer.importBlock(next, { pipeline: true }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(InvalidBlockError);
        expect((err as InvalidBlockError).number).toBe(BigInt(n));
        expect((err as Error).message).toMatch(
          new RegExp(
            `^block ${n} \\(0x[0-9a-f]{64}\\) is invalid: state root mismatch: header 0x0{64}, executed 0x[0-9a-f]{64}$`,
          ),
        );
        await importer.settle(); // reported once
        const before = blocks[n - 2] as (typeof blocks)[number];
        expect(hex(store.head().hash)).toBe(hex(headerHash(before.header)));
        expect(store.headerByHash(headerHash(bad.header))).toBeUndefined();
        expect(store.headerByHash(headerHash(next.header))).toBeUndefined();
        expect(store.hasState(headerHash(next.header))).toBe(false);
        // The good chain goes on from N-1 (the overlay was dropped and rebuilt from the database).
        for (const block of blocks.slice(n - 1)) {
          expect((await importer.importBlock(block, { pipeline: true })).status).toBe('imported');
        }
        await importer.settle();
        const last = blocks[blocks.length - 1] as (typeof blocks)[number];
        expect(hex(store.head().hash)).toBe(hex(headerHash(last.header)));
      } finally {
        await done();
      }
    });

    it('reports block N’s wrong state root before whatever else is wrong with the block after it', async () => {
      const { store, genesis, importer, done } = await setUp();
      try {
        const first = blocks[0] as (typeof blocks)[number];
        const bad = { ...first, header: { ...first.header, stateRoot: new Uint8Array(32) } };
        await importer.importBlock(bad, { pipeline: true });
        // The real block 2 names the real block 1 as parent: refused before execution, yet block 1's root is the news.
        await expect(importer.importBlock(blocks[1] as (typeof blocks)[number], { pipeline: true })).rejects.toThrow(
          /^block 1 .* is invalid: state root mismatch/,
        );
        expect(hex(store.head().hash)).toBe(hex(genesis.hash));
        await importer.settle();
      } finally {
        await done();
      }
    });

    it('reports a wrong state root of the last block from settle()', async () => {
      const { store, genesis, importer, done } = await setUp();
      try {
        const first = blocks[0] as (typeof blocks)[number];
        const bad = { ...first, header: { ...first.header, stateRoot: new Uint8Array(32) } };
        await importer.importBlock(bad, { pipeline: true });
        await expect(importer.settle()).rejects.toThrow(/^block 1 .* is invalid: state root mismatch/);
        expect(hex(store.head().hash)).toBe(hex(genesis.hash));
      } finally {
        await done();
      }
    });
  },
);
