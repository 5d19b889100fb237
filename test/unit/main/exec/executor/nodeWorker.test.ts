// tern-exec with `executor: 'worker'`: the node starts the executor thread over its LMDB directory, a payload
// built elsewhere executes there, and the coordinator's head, reads and head events follow; the memory engine and
// preimage recording keep the inline twin and say why. (The executor thread loads from dist/: build:ts first.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { threadCensus } from '../../../../../src/main/common/pprof/collector.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { headEvents, type NewHeadEvent } from '../../../../../src/main/exec/chain/headEvents.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { type ExecNodeOptions, startExecNode } from '../../../../../src/main/exec/node.js';
import {
  attributes,
  type EngineFixture,
  engineFixture,
  genesisJson,
  hex,
  pending,
  transfer,
  ZERO32,
} from '../engine/fixture.js';

const BEACON = new Uint8Array(32).fill(9);

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const { logger } = createLogger({
    level: 'info',
    format: 'json',
    stream: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

describe('tern-exec with the worker executor', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function node(db: Database, extra: Partial<ExecNodeOptions>) {
    await new ChainStore(db).initGenesis(parseGenesis(genesisJson()));
    const { logger, lines } = capturingLogger();
    const lifecycle = new Lifecycle(logger);
    const n = await startExecNode(
      db,
      { rpc: {}, ipcPath: undefined, backend: {}, callWorkers: 0, blockWorkers: false, executor: 'worker', ...extra },
      { logger, lifecycle },
    );
    cleanup.push(async () => {
      await lifecycle.stop('test done');
      await db.close();
    });
    return { n, lines };
  }

  async function lmdb(): Promise<Database> {
    const dir = mkdtempSync(join(tmpdir(), 'tern-node-executor-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    return openDatabase({ datadir: dir });
  }

  it('executes a payload on the executor thread; the head, receipts and head events follow on the coordinator', async () => {
    const { n, lines } = await node(await lmdb(), {});
    expect(lines.some((l) => l.msg === 'Block executor runs on its own thread')).toBe(true);
    // A payload built by another node, so this one executes it (not its own build).
    const src: EngineFixture = await engineFixture({ executor: 'inline' });
    cleanup.push(() => src.close());
    src.pool.txs = [pending(await transfer(0))];
    const genesis = { headBlockHash: src.genesisHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
    const fcu = await src.api.forkchoiceUpdated(3, genesis, attributes(12n));
    const payload = src.api.getPayload(3, fcu.payloadId as Uint8Array).executionPayload;

    const heads: NewHeadEvent[] = [];
    headEvents(n.store.db).on((h) => heads.push(h));
    expect(await n.engine.newPayload(3, payload, [], BEACON)).toMatchObject({ status: 'VALID' });
    expect(n.store.head().number).toBe(0n);
    expect(n.store.blockByHash(payload.blockHash)?.transactions).toHaveLength(1);
    const set = await n.engine.forkchoiceUpdated(3, {
      headBlockHash: payload.blockHash,
      safeBlockHash: payload.blockHash,
      finalizedBlockHash: ZERO32,
    });
    expect(set.payloadStatus.status).toBe('VALID');
    expect(hex(n.store.head().hash)).toBe(hex(payload.blockHash));
    expect(heads.map((h) => h.number)).toEqual([1n]);
    expect(hex(n.store.safeHash() as Uint8Array)).toBe(hex(payload.blockHash));
    expect(n.store.receipts(1n, payload.blockHash)?.[0]?.status).toBe(1);
    // The coordinator's builder runs on the state the thread wrote: the next nonce builds.
    const next = await n.engine.forkchoiceUpdated(
      3,
      { headBlockHash: payload.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      attributes(24n, { noTxPool: true }),
    );
    expect(next.payloadStatus.status).toBe('VALID');
    expect(n.engine.getPayload(3, next.payloadId as Uint8Array).executionPayload.blockNumber).toBe(2n);
  });

  it('starts no idle duplicate threads: admission shares the senders pool, only the executor thread hashes', async () => {
    const { n } = await node(await lmdb(), { blockWorkers: true, admissionWorkers: undefined });
    const src: EngineFixture = await engineFixture({ executor: 'inline' });
    cleanup.push(() => src.close());
    src.pool.txs = [pending(await transfer(0))];
    const genesis = { headBlockHash: src.genesisHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
    const fcu = await src.api.forkchoiceUpdated(3, genesis, attributes(12n));
    const payload = src.api.getPayload(3, fcu.payloadId as Uint8Array).executionPayload;
    expect(await n.engine.newPayload(3, payload, [], BEACON)).toMatchObject({ status: 'VALID' });
    const pools = (await threadCensus(2000)).map((t) => t.pool);
    const count = (name: string) => pools.filter((p) => p === name).length;
    expect(count('executor'), pools.join(',')).toBe(1);
    // The executor thread's trie thread hashed the payload; the coordinator's never started.
    expect(count('trie'), pools.join(',')).toBe(1);
    // The coordinator's (shared with tx admission) and the executor thread's own: no third for admission.
    expect(count('senders'), pools.join(',')).toBe(2);
  });

  it('keeps the inline executor, saying why, for the memory engine and for preimage recording', async () => {
    const mem = await node(await openDatabase({ engine: 'memory' }), {});
    expect(mem.lines.find((l) => l.msg === 'Block executor stays on the main thread')?.reason).toMatch(/memory/);
    // What the flags give without --vmdebug or --cache.preimages records nothing: the thread is used.
    const off = await node(await lmdb(), { preimages: { sha3: false, trieKeys: false } });
    expect(off.lines.some((l) => l.msg === 'Block executor runs on its own thread')).toBe(true);
    const pre = await node(await lmdb(), { preimages: { sha3: true, trieKeys: false } });
    expect(pre.lines.find((l) => l.msg === 'Block executor stays on the main thread')?.reason).toMatch(/preimage/);
  });
});
