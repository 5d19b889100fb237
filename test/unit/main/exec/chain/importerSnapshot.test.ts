// The importer's flat-state caches as --cache.snapshot and --snapshot set them (history/options.ts
// snapshotCacheOptions): the execution-apis chain imports right warm, cold (--snapshot=false) and with a cache
// that keeps starting over; only the warm importer carries its overlay from block to block.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { snapshotCacheOptions } from '../../../../../src/main/exec/history/options.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { FlatState, type FlatStateOptions } from '../../../../../src/main/exec/state/flatState.js';
import { decodeBlock, encodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const TESTS = join(FIXTURES, 'execution-apis/tests');
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const logger = createLogger({ level: 'silent', format: 'json' }).logger;

afterEach(() => {
  vi.restoreAllMocks();
});

async function importChain(flatState: Partial<FlatStateOptions> | undefined): Promise<{ warmBlocks: number }> {
  const rebase = vi.spyOn(FlatState.prototype, 'rebase');
  const db = await openDatabase({ engine: 'memory' });
  try {
    const store = new ChainStore(db);
    await store.initGenesis(parseGenesis(JSON.parse(readFileSync(join(TESTS, 'genesis.json'), 'utf8'))));
    const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger, { flatState });
    const blocks = [...rlpItems(readFileSync(join(TESTS, 'chain.rlp')))].map(decodeBlock);
    for (const block of blocks) expect((await importer.importBlock(block)).status).toBe('imported');
    await importer.settle();
    const last = blocks[blocks.length - 1] as (typeof blocks)[number];
    expect(hex(store.head().hash)).toBe(hex(headerHash(last.header)));
    expect(hex(encodeBlock(store.blockByNumber(last.header.number) as never))).toBe(hex(encodeBlock(last)));
    return { warmBlocks: rebase.mock.calls.length };
  } finally {
    await db.close();
  }
}

describe('BlockImporter flat-state options', () => {
  it('imports warm by default: each block after the first runs on the overlay the previous one left', async () => {
    const { warmBlocks } = await importChain(undefined);
    expect(warmBlocks).toBeGreaterThan(10);
  });

  it('--snapshot=false: every block starts from a cold overlay, with the same result', async () => {
    expect(snapshotCacheOptions(0)).toEqual({ codeCacheBytes: 0, maxCachedAccounts: 0 });
    const { warmBlocks } = await importChain(snapshotCacheOptions(0));
    expect(warmBlocks).toBe(0);
  });

  it('a cache too small for a block starts over and stays correct', async () => {
    await importChain({ maxCachedAccounts: 2, codeCacheBytes: 64 });
  });
});
