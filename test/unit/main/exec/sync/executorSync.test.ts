// Full sync through the executor thread (the node's default on LMDB): the sync hands each chunk to the worker
// BlockExecutor's importChain, the blocks execute there (no importer on this thread at all), and the coordinator's
// ChainStore and head events follow. (The executor thread loads from dist/: build:ts first.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { headEvents, type NewHeadEvent } from '../../../../../src/main/exec/chain/headEvents.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { WorkerBlockExecutor } from '../../../../../src/main/exec/executor/worker.js';
import { startSync } from '../../../../../src/main/exec/sync/service.js';
import { toHex } from '../../../../../src/main/primitives/bytes.js';
import { genesis, opened, peers, silent, small, sourceChain } from './syncFixture.js';

afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

describe('full sync on the executor thread', () => {
  it('imports every chunk there; the coordinator’s head, receipts and head events follow', async () => {
    const chain = await sourceChain();
    const dir = mkdtempSync(join(tmpdir(), 'tern-sync-executor-'));
    opened.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
    const db = await openDatabase({ datadir: dir });
    opened.push(db);
    const store = new ChainStore(db);
    await store.initGenesis(genesis());
    const paths = db.paths;
    if (paths === undefined) throw new Error('an LMDB database has paths');
    const executor = await WorkerBlockExecutor.start(store, {
      paths,
      blockCacheBytes: 1 << 20,
      stages: { workers: false, hasher: {}, senderChunk: 16 },
    });
    opened.push(executor);
    const heads: NewHeadEvent[] = [];
    headEvents(db).on((h) => heads.push(h));
    const { set } = await peers(['honest', 'honest']);
    const sync = startSync({
      peers: set,
      store,
      importChain: (parent, blocks) => executor.importChain(parent, blocks),
      logger: silent,
      limits: small,
    });
    opened.push(sync);
    sync.target(chain.canonicalHash(7n)!);
    await sync.idle();
    expect(store.head().number).toBe(7n);
    sync.target(chain.head().hash);
    await sync.idle();
    expect(sync.status()).toEqual({ state: 'idle', target: undefined, error: undefined });
    expect(toHex(store.head().hash)).toBe(toHex(chain.head().hash));
    for (let n = 1n; n <= 20n; n++) {
      const hash = store.canonicalHash(n)!;
      expect(toHex(hash)).toBe(toHex(chain.canonicalHash(n)!));
      expect(store.receipts(n, hash)?.length).toBe(chain.blockByNumber(n)!.transactions.length);
    }
    // One head event per chunk of 4 (small.importChunk), the last on the head.
    expect(heads.length).toBeGreaterThanOrEqual(5);
    expect(heads.at(-1)?.number).toBe(20n);
  });
});
