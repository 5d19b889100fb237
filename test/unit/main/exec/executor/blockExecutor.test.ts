// One suite for every BlockExecutor (the inline twin, and the worker twin over an LMDB directory): execute and store
// beside the chain, store its own builds by hash, reorg to a side branch, refuse invalid blocks without storing them;
// the coordinator's ChainStore and head events follow what the executor wrote.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { BlockBuilder } from '../../../../../src/main/exec/chain/builder.js';
import { MAX_BUILT_BLOCKS } from '../../../../../src/main/exec/chain/builtBlocks.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { headEvents, type NewHeadEvent } from '../../../../../src/main/exec/chain/headEvents.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { InlineBlockExecutor } from '../../../../../src/main/exec/executor/inline.js';
import type { BlockExecutor } from '../../../../../src/main/exec/executor/interface.js';
import { WorkerBlockExecutor } from '../../../../../src/main/exec/executor/worker.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import type { Block } from '../../../../../src/main/primitives/block/block.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import { ACCOUNT, bytes, CHAIN_ID, FakePool, genesisJson, hex, pending, transfer } from '../engine/fixture.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

interface Node {
  db: Database;
  store: ChainStore;
  executor: BlockExecutor;
  pool: FakePool;
  genesis: Uint8Array;
  close(): Promise<void>;
}

async function inlineOver(db: Database): Promise<Omit<Node, 'close'> & { inline: InlineBlockExecutor }> {
  const store = new ChainStore(db);
  const { hash } = await store.initGenesis(parseGenesis(genesisJson()));
  const senders = new InlineSenderRecovery();
  const pool = new FakePool();
  const inline = new InlineBlockExecutor(
    store,
    await BlockImporter.create(store, senders, logger),
    await BlockBuilder.create(store, senders, { logger, pool }),
  );
  return { db, store, executor: inline, inline, pool, genesis: hash };
}

async function inlineNode(): Promise<Node> {
  const n = await inlineOver(await openDatabase({ engine: 'memory' }));
  return { ...n, close: () => n.db.close() };
}

/** The worker twin: the executor thread opens the same LMDB directory (it loads from dist/: build:ts first). */
async function workerNode(): Promise<Node> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-executor-'));
  const n = await inlineOver(await openDatabase({ datadir: dir }));
  const paths = n.db.paths;
  if (paths === undefined) throw new Error('an LMDB database has paths');
  const executor = await WorkerBlockExecutor.start(
    n.store,
    { paths, blockCacheBytes: 1 << 20, stages: { workers: false, hasher: {}, senderChunk: 64 } },
    { txPool: n.pool },
  );
  return {
    ...n,
    executor,
    close: async () => {
      await executor.close();
      await n.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const attrs = (timestamp: bigint, fee = 0xfe) => ({
  timestamp,
  prevRandao: new Uint8Array(32).fill(7),
  feeRecipient: new Uint8Array(20).fill(fee),
  withdrawals: [],
  parentBeaconBlockRoot: new Uint8Array(32).fill(9),
});

/** A transfer from the funded account with its own gas limit. */
async function transferWithGas(nonce: number, gas: bigint): Promise<Uint8Array> {
  const raw = await ACCOUNT.signTransaction({
    type: 'eip1559',
    chainId: CHAIN_ID,
    nonce,
    to: `0x${'22'.repeat(20)}`,
    value: 1n,
    gas,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 2_000_000_000n,
  });
  return bytes(raw);
}

const nonces = (b: { block: Block }) => b.block.transactions.map((raw) => decodeTransaction(raw).nonce);

describe.each([
  ['inline', inlineNode],
  ['worker', workerNode],
] as const)('BlockExecutor (%s)', (_name, make) => {
  const nodes: Node[] = [];
  const node = async () => {
    const n = await make();
    nodes.push(n);
    return n;
  };
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.close();
  });

  it('stores its own build by hash without moving the head, and knows only its recent builds', async () => {
    const a = await node();
    a.pool.txs = [pending(await transfer(0))];
    const built = await a.executor.build(a.genesis, attrs(12n));
    expect(built.block.transactions).toHaveLength(1);
    expect(built.blockValue).toBeGreaterThan(0n);
    expect(a.store.headerByHash(built.hash)).toBeUndefined();
    expect(await a.executor.insertBuilt(new Uint8Array(32).fill(5))).toBe(false);
    expect(await a.executor.insertBuilt(built.hash)).toBe(true);
    expect(a.store.hasState(built.hash)).toBe(true);
    expect(a.store.head().number).toBe(0n);
    // Older builds are dropped beyond the bound.
    a.pool.txs = [];
    const first = await a.executor.build(a.genesis, attrs(100n));
    for (let i = 1; i <= MAX_BUILT_BLOCKS; i++) await a.executor.build(a.genesis, attrs(100n + BigInt(i)));
    expect(await a.executor.insertBuilt(first.hash)).toBe(false);
  });

  it('builds forced transactions first, then pool candidates in order, dropping one that fails in the block', async () => {
    const a = await node();
    // Nonce 5 cannot follow 2: invalid in the block, dropped, and the block is executed again without it.
    a.pool.txs = await Promise.all([1, 2, 5].map(async (n) => pending(await transfer(n))));
    const built = await a.executor.build(a.genesis, { ...attrs(12n), transactions: [await transfer(0)] });
    expect(nonces(built)).toEqual([0n, 1n, 2n]);
    // Two transfers at a 2 gwei tip each (the forced one pays too): what getPayload reports as the block's value.
    expect(built.blockValue).toBe(3n * 21_000n * 2_000_000_000n);
    expect(await a.executor.insertBuilt(built.hash)).toBe(true);
    expect(a.store.blockByHash(built.hash)?.transactions).toHaveLength(3);
  });

  it('takes no pool transactions with noTxPool, and skips a sender whose next transaction exceeds the gas left', async () => {
    const a = await node();
    a.pool.txs = [pending(await transfer(0))];
    const forcedOnly = await a.executor.build(a.genesis, { ...attrs(12n), noTxPool: true });
    expect(forcedOnly.block.transactions).toHaveLength(0);
    // 30M gas fits the 30M block alone, but not after the forced transfer; the sender's later ones go with it.
    a.pool.txs = [pending(await transferWithGas(1, 30_000_000n)), pending(await transfer(2))];
    const skipped = await a.executor.build(a.genesis, { ...attrs(13n), transactions: [await transfer(0)] });
    expect(nonces(skipped)).toEqual([0n]);
    // Without the forced transaction the big one fits and fills the block: nothing after it.
    a.pool.txs = [pending(await transferWithGas(0, 30_000_000n)), pending(await transfer(1))];
    const full = await a.executor.build(a.genesis, attrs(14n));
    expect(nonces(full)).toEqual([0n]);
    expect(await a.executor.build(new Uint8Array(32).fill(4), attrs(15n)).catch((e: unknown) => e)).toMatchObject({
      code: 'BUILD_UNKNOWN_PARENT',
    });
  });

  it('imports a run of blocks as the canonical chain (the sync), moving back to its parent first', async () => {
    const src = await node();
    const dst = await node();
    const run: Block[] = [];
    let parent = src.genesis;
    for (let i = 0; i < 3; i++) {
      src.pool.txs = [pending(await transfer(i))];
      const b = await src.executor.build(parent, attrs(12n * BigInt(i + 1)));
      await src.executor.insertBuilt(b.hash);
      run.push(b.block);
      parent = b.hash;
    }
    const heads: NewHeadEvent[] = [];
    headEvents(dst.db).on((h) => heads.push(h));
    const first = await dst.executor.importChain(
      dst.genesis,
      run.slice(0, 2).map((block) => ({ block })),
    );
    expect(dst.store.head().number).toBe(2n);
    expect(hex(dst.store.head().hash)).toBe(hex(first));
    expect(heads.at(-1)?.number).toBe(2n);
    expect(dst.store.receipts(2n, first)).toHaveLength(1);
    // A side block moves the head away; the next run starts from its own parent again.
    src.pool.txs = [];
    const side = await src.executor.build(src.genesis, attrs(12n, 0xbb));
    await dst.executor.insert(side.block);
    await dst.executor.setHead(side.hash);
    expect(hex(dst.store.head().hash)).toBe(hex(side.hash));
    // An invalid block after a reorg back to the run's parent: nothing of it is written, the head is the parent.
    const bad: Block = { ...(run[2] as Block), header: { ...(run[2] as Block).header, gasUsed: 1n } };
    await expect(dst.executor.importChain(first, [{ block: bad }])).rejects.toMatchObject({ code: 'BLOCK_INVALID' });
    expect(hex(dst.store.head().hash)).toBe(hex(first));
    expect(heads.at(-1)?.number).toBe(2n);
    expect(await dst.executor.importChain(first, [{ block: run[2] as Block }])).toEqual(parent);
    expect(hex(dst.store.head().hash)).toBe(hex(parent));
    expect(heads.at(-1)?.number).toBe(3n);
  });

  it('holds a deferred child of the head until the forkchoice update to it, which writes state and head at once', async () => {
    const src = await node();
    const dst = await node();
    const to = bytes(`0x${'11'.repeat(20)}`);
    // a1 → a2 → a3 → a4, one transfer of 1000 wei each; b1 a side block on the genesis.
    const chain: Array<{ block: Block; hash: Uint8Array }> = [];
    let parent = src.genesis;
    for (let i = 0; i < 4; i++) {
      src.pool.txs = [pending(await transfer(i))];
      const built = await src.executor.build(parent, attrs(12n * BigInt(i + 1)));
      await src.executor.insertBuilt(built.hash);
      await src.executor.setHead(built.hash);
      chain.push(built);
      parent = built.hash;
    }
    src.pool.txs = [];
    const b1 = await src.executor.build(src.genesis, attrs(12n, 0xbb));
    const [a1, a2, a3, a4] = chain as [(typeof chain)[0], (typeof chain)[0], (typeof chain)[0], (typeof chain)[0]];
    const heads: NewHeadEvent[] = [];
    headEvents(dst.db).on((h) => heads.push(h));

    // Held: the block is stored (readable by hash) but not its state; the head stays.
    const r1 = await dst.executor.insert(a1.block, { defer: true });
    expect(r1).toMatchObject({ status: 'imported', held: true });
    expect(dst.store.blockByHash(a1.hash)?.transactions).toHaveLength(1);
    expect(dst.store.hasState(a1.hash)).toBe(false);
    expect(dst.store.head().number).toBe(0n);
    // The forkchoice update to it: one write, as a canonical import (reverse changes kept for a reorg).
    expect(await dst.executor.setHead(a1.hash)).toEqual({ unwound: 0, applied: 1 });
    expect(hex(dst.store.head().hash)).toBe(hex(a1.hash));
    expect(heads.map((h) => h.number)).toEqual([1n]);
    expect(dst.store.receipts(1n, a1.hash)).toHaveLength(1);
    expect(dst.store.stateReader().getAccount(to)?.balance).toBe(1000n);

    // Another call first (a side block): the held a2 is written beside the chain, then made the head from there.
    expect((await dst.executor.insert(a2.block, { defer: true })).held).toBe(true);
    expect((await dst.executor.insert(b1.block, { defer: true })).held).toBeUndefined();
    expect(dst.store.hasState(a2.hash)).toBe(true);
    expect(dst.store.hasState(b1.hash)).toBe(true);
    expect(dst.store.head().number).toBe(1n);
    expect(await dst.executor.setHead(a2.hash)).toEqual({ unwound: 0, applied: 1 });

    // Nothing follows: the held block is written beside the chain after a short while.
    expect((await dst.executor.insert(a3.block, { defer: true })).held).toBe(true);
    await vi.waitFor(() => expect(dst.store.hasState(a3.hash)).toBe(true), { timeout: 5000, interval: 20 });
    expect(dst.store.head().number).toBe(2n);
    expect(await dst.executor.setHead(a3.hash)).toEqual({ unwound: 0, applied: 1 });

    // a4 executes on the flat state the held writes left: its state root checks out, and a reorg unwinds them.
    expect((await dst.executor.insert(a4.block, { defer: true })).held).toBe(true);
    expect(await dst.executor.setHead(a4.hash)).toEqual({ unwound: 0, applied: 1 });
    expect(dst.store.stateReader().getAccount(to)?.balance).toBe(4000n);
    expect(await dst.executor.setHead(b1.hash)).toEqual({ unwound: 4, applied: 1 });
    expect(dst.store.stateReader().getAccount(to)).toBeUndefined();
    expect(await dst.executor.setHead(a4.hash)).toEqual({ unwound: 1, applied: 4 });
    expect(dst.store.stateReader().getAccount(to)?.balance).toBe(4000n);
    expect(heads.at(-1)?.number).toBe(4n);
  });

  it('executes blocks built elsewhere, reorgs to a side branch and back, and refuses an invalid block', async () => {
    const src = await node();
    const dst = await node();
    // Branch A: one block with a transfer; branch B: two empty blocks with another fee recipient.
    src.pool.txs = [pending(await transfer(0))];
    const a1 = await src.executor.build(src.genesis, attrs(12n));
    src.pool.txs = [];
    const b1 = await src.executor.build(src.genesis, attrs(12n, 0xbb));
    await src.executor.insertBuilt(b1.hash);
    const b2 = await src.executor.build(b1.hash, attrs(24n, 0xbb));
    const blockOf = (b: { block: Block }) => b.block;
    const heads: NewHeadEvent[] = [];
    headEvents(dst.db).on((h) => heads.push(h));
    expect((await dst.executor.insert(blockOf(a1))).status).toBe('imported');
    // Stored beside the chain, readable through the coordinator's store; the head has not moved.
    expect(dst.store.blockByHash(a1.hash)?.transactions).toHaveLength(1);
    expect(dst.store.head().number).toBe(0n);
    expect(await dst.executor.setHead(a1.hash)).toEqual({ unwound: 0, applied: 1 });
    expect(hex(dst.store.head().hash)).toBe(hex(a1.hash));
    expect(heads.map((h) => hex(h.hash))).toEqual([hex(a1.hash)]);
    expect(dst.store.receipts(1n, a1.hash)).toHaveLength(1);
    expect((await dst.executor.insert(blockOf(b1))).status).toBe('imported');
    expect((await dst.executor.insert(blockOf(b1))).status).toBe('known');
    expect((await dst.executor.insert(blockOf(b2))).status).toBe('imported');
    expect(hex(dst.store.head().hash)).toBe(hex(a1.hash));
    expect(await dst.executor.setHead(b2.hash)).toEqual({ unwound: 1, applied: 2 });
    expect(heads.map((h) => hex(h.hash))).toEqual([hex(a1.hash), hex(b2.hash)]);
    expect(hex(dst.store.head().hash)).toBe(hex(b2.hash));
    expect(hex(dst.store.canonicalHash(1n) as Uint8Array)).toBe(hex(b1.hash));
    await dst.executor.setForkchoiceMarkers(b1.hash, b1.hash);
    expect(hex(dst.store.finalizedHash() as Uint8Array)).toBe(hex(b1.hash));
    expect(await dst.executor.setHead(a1.hash)).toEqual({ unwound: 2, applied: 1 });
    // A wrong gas used: invalid, nothing stored.
    const bad: Block = { ...b2.block, header: { ...b2.block.header, parentHash: a1.hash, gasUsed: 1n } };
    await expect(dst.executor.insert(bad)).rejects.toMatchObject({ code: 'BLOCK_INVALID' });
    expect(dst.store.head().number).toBe(1n);
    await expect(
      dst.executor.insert({ ...bad, header: { ...bad.header, parentHash: new Uint8Array(32).fill(3) } }),
    ).rejects.toMatchObject({ code: 'BLOCK_UNKNOWN_PARENT' });
  });
});

describe('BlockExecutor (worker): newPayload of a block it did not build', () => {
  it('answers insertBuilt from the hashes of its builds, without queuing behind the thread', async () => {
    const src = await inlineNode();
    const dst = await workerNode();
    try {
      src.pool.txs = [pending(await transfer(0))];
      const a1 = await src.executor.build(src.genesis, attrs(12n));
      // The thread is busy with a1; a question about a block it never built must not wait for that.
      const order: string[] = [];
      const inserting = dst.executor.insert(a1.block).then(() => order.push('insert'));
      const asked = dst.executor.insertBuilt(a1.hash).then((r) => order.push(`insertBuilt ${r}`));
      await Promise.all([inserting, asked]);
      expect(order).toEqual(['insertBuilt false', 'insert']);
      // Its own builds still go to the thread.
      dst.pool.txs = [];
      const own = await dst.executor.build(a1.hash, attrs(24n));
      expect(await dst.executor.insertBuilt(own.hash)).toBe(true);
      expect(dst.store.hasState(own.hash)).toBe(true);
    } finally {
      await dst.close();
      await src.close();
    }
  });
});
