// Imports the execution-apis chain (20 Cancun blocks: transfers, contract creations, logs, blob transactions,
// withdrawals) on top of its genesis: every header, receipt root, bloom, gas figure and state root must match.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
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
    // A block with a wrong state root: rejected, the queued writes before it still land.
    const next = blocks[half] as (typeof blocks)[number];
    const bad = { ...next, header: { ...next.header, stateRoot: new Uint8Array(32) } };
    await expect(importer.importBlock(bad, { pipeline: true })).rejects.toThrow(/state root mismatch/);
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
