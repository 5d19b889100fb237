// Group commit of pipelined imports (importer.ts writeGroup, ChainStore.commitBlocks): while one block's write is in
// flight, the blocks queued behind it whose state roots checked out are written together in ONE batch, in order;
// each block's reverse changes are those of its own parent state (a reorg back through the group restores the state
// exactly); a wrong root in the middle of a would-be group lands the blocks before it and nothing after; a group
// whose commit fails writes none of its blocks, and the import resumes from the block before.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KVStore, WriteBatch } from '../../../../../src/main/common/db/interface.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { TablePrefix as Prefix } from '../../../../../src/main/exec/db/schema.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { type Block, decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const TESTS = join(FIXTURES, 'execution-apis/tests');
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const blocks: Block[] = [...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))].map(decodeBlock);
const block = (n: number) => blocks[n - 1] as Block;
const withBadRoot = (b: Block): Block => ({ ...b, header: { ...b.header, stateRoot: new Uint8Array(32) } });

/**
 * Watches the store's batches: which block headers each committed batch wrote, in commit order. The batch writing
 * block `holdAt` waits for release(); `failAt` makes the first batch writing that block fail without writing anything.
 */
function watchCommits(kv: KVStore, opts: { holdAt?: number; failAt?: number } = {}) {
  const committed: number[][] = [];
  let failAt = opts.failAt;
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  const original = kv.batch.bind(kv);
  kv.batch = (): WriteBatch => {
    const inner = original();
    const numbers: number[] = [];
    return {
      put(key, value) {
        // 'h' number(8) hash(32): a header.
        if (key[0] === Prefix.header && key.length === 41)
          numbers.push(Number(Buffer.from(key.subarray(1, 9)).readBigUInt64BE()));
        inner.put(key, value);
      },
      delete: (key) => inner.delete(key),
      get size() {
        return inner.size;
      },
      get byteSize() {
        return inner.byteSize;
      },
      async commit() {
        if (opts.holdAt !== undefined && numbers.includes(opts.holdAt)) await held;
        if (failAt !== undefined && numbers.includes(failAt)) {
          failAt = undefined; // once
          throw new Error('injected commit failure');
        }
        await inner.commit();
        if (numbers.length > 0) committed.push(numbers);
      },
    };
  };
  return { committed, release };
}

/** Where each test's databases live: memory, or LMDB datadirs removed after the test. */
const engines = ['memory', 'lmdb'] as const;
const datadirs: string[] = [];

afterEach(() => {
  for (const d of datadirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setUp(engine: (typeof engines)[number] = 'memory') {
  let db: Awaited<ReturnType<typeof openDatabase>>;
  if (engine === 'memory') db = await openDatabase({ engine: 'memory' });
  else {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-group-commit-'));
    datadirs.push(datadir);
    db = await openDatabase({ datadir });
  }
  const store = new ChainStore(db);
  await store.initGenesis(parseGenesis(JSON.parse(readFileSync(join(TESTS, 'genesis.json'), 'utf8'))));
  const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger);
  return { db, store, importer };
}

/** Every row of the flat state tables (accounts, storage). */
function flatState(kv: KVStore): string[] {
  const rows: string[] = [];
  for (const prefix of [Prefix.account, Prefix.storage])
    for (const { key, value } of kv.iterate({ prefix: Uint8Array.of(prefix) })) rows.push(`${hex(key)}=${hex(value)}`);
  return rows;
}

/** Lets the inline hasher's commitments and the writer's continuations run. */
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe.each(engines)('group commit of pipelined imports (%s)', (engine) => {
  it('writes the blocks queued behind a commit in flight in one batch, in order, each with its own reverse changes', async () => {
    const { db, store, importer } = await setUp(engine);
    const { committed, release } = watchCommits(db.kv, { holdAt: 1 });
    for (let n = 1; n <= 4; n++) await importer.importBlock(block(n), { pipeline: true });
    await turns();
    expect(committed).toEqual([]); // block 1's commit is still held: nothing is written
    release();
    await importer.settle();
    expect(committed).toEqual([[1], [2, 3, 4]]);
    expect(hex(store.head().hash)).toBe(hex(headerHash(block(4).header)));
    for (let n = 1; n <= 4; n++) {
      expect(hex(store.canonicalHash(BigInt(n)) as Uint8Array)).toBe(hex(headerHash(block(n).header)));
      expect(store.hasState(headerHash(block(n).header))).toBe(true);
    }
    // Unwinding through the group with the stored reverse changes gives block 2's state exactly, as a database that
    // imported blocks 1 and 2 one by one holds it (block 3's reverse changes are block 2's values, not block 1's).
    const reference = await setUp();
    for (let n = 1; n <= 2; n++) await reference.importer.importBlock(block(n));
    await importer.setHead(headerHash(block(2).header));
    expect(hex(store.head().hash)).toBe(hex(headerHash(block(2).header)));
    expect(flatState(db.kv)).toEqual(flatState(reference.db.kv));
    // And forward again through the blocks' changes.
    await importer.setHead(headerHash(block(4).header));
    for (let n = 5; n <= blocks.length; n++) await importer.importBlock(block(n), { pipeline: true });
    await importer.settle();
    expect(hex(store.head().hash)).toBe(hex(headerHash(block(blocks.length).header)));
    await reference.db.close();
    await db.close();
  });

  it('lands the blocks before a wrong state root in the middle of a would-be group, and nothing of it or after', async () => {
    const { db, store, importer } = await setUp(engine);
    const { committed, release } = watchCommits(db.kv, { holdAt: 1 });
    for (let n = 1; n <= 3; n++) await importer.importBlock(block(n), { pipeline: true });
    const bad = withBadRoot(block(4));
    await importer.importBlock(bad, { pipeline: true });
    await turns();
    release();
    const child = block(5);
    const next = { ...child, header: { ...child.header, parentHash: headerHash(bad.header) } };
    await expect(importer.importBlock(next, { pipeline: true })).rejects.toThrow(
      /^block 4 .* is invalid: state root mismatch/,
    );
    await importer.settle(); // reported once
    expect(committed).toEqual([[1], [2, 3]]);
    expect(hex(store.head().hash)).toBe(hex(headerHash(block(3).header)));
    expect(store.headerByHash(headerHash(bad.header))).toBeUndefined();
    expect(store.headerByHash(headerHash(next.header))).toBeUndefined();
    for (let n = 4; n <= blocks.length; n++) await importer.importBlock(block(n), { pipeline: true });
    await importer.settle();
    expect(hex(store.head().hash)).toBe(hex(headerHash(block(blocks.length).header)));
    await db.close();
  });

  it('writes none of a group whose commit fails; the import resumes from the block before it', async () => {
    const { db, store, importer } = await setUp(engine);
    const { committed, release } = watchCommits(db.kv, { holdAt: 1, failAt: 3 });
    for (let n = 1; n <= 5; n++) await importer.importBlock(block(n), { pipeline: true });
    await turns();
    release();
    await expect(importer.settle()).rejects.toThrow(/injected commit failure/);
    expect(committed).toEqual([[1]]);
    expect(hex(store.head().hash)).toBe(hex(headerHash(block(1).header)));
    for (let n = 2; n <= 5; n++) expect(store.headerByHash(headerHash(block(n).header))).toBeUndefined();
    // A fresh store over the same database agrees (nothing of the group is there, the head is block 1), and the
    // import goes on from there.
    expect(hex(new ChainStore(db).head().hash)).toBe(hex(headerHash(block(1).header)));
    for (let n = 2; n <= blocks.length; n++) await importer.importBlock(block(n), { pipeline: true });
    await importer.settle();
    expect(hex(store.head().hash)).toBe(hex(headerHash(block(blocks.length).header)));
    await db.close();
  });
});
