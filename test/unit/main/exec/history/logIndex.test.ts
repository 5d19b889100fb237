import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberryRng } from '../../../../../bench/rng.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainView } from '../../../../../src/main/exec/chain/chainView.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import * as chain from '../../../../../src/main/exec/db/chain.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { configureLogCache } from '../../../../../src/main/exec/history/logCache.js';
import { candidateBlocks, readLogIndexRange } from '../../../../../src/main/exec/history/logIndex.js';
import { LogIndexer } from '../../../../../src/main/exec/history/logIndexer.js';
import { decodeLogFilter, getLogs } from '../../../../../src/main/exec/rpc/logs.js';
import type { ChainConfig } from '../../../../../src/main/primitives/chainConfig.js';
import { buildTestChain, EXECUTION_APIS } from '../rpc/chain.js';
import { ADDRESSES, makeBlock, TOPICS, writeSyntheticBlock, writeSyntheticChain } from './synthetic.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const config = (): ChainConfig =>
  parseGenesis(JSON.parse(readFileSync(join(EXECUTION_APIS, 'genesis.json'), 'utf8'))).config;

function query(db: Database, filter: Record<string, unknown>): unknown[] {
  const view = ChainView.open(db, config());
  try {
    return getLogs(view, decodeLogFilter(filter));
  } finally {
    view.release();
  }
}

async function drain(ix: LogIndexer): Promise<void> {
  for (let i = 0; i < 10_000 && (await ix.step()); i++) {}
}

const A = ADDRESSES.map(hex);
const T = TOPICS.map(hex);
const FILTERS: Array<Record<string, unknown>> = [
  {},
  { address: A[0] },
  { address: [A[1], A[2]] },
  { topics: [T[0]] },
  { topics: [null, T[1]] },
  { topics: [[T[2], T[3]], null, T[4]] },
  { address: A[3], topics: [T[0]] },
  { address: `0x${'99'.repeat(20)}` },
  { topics: [null, null, null, T[1]] },
];

describe('log index (--history.logs)', () => {
  it('gives the same logs as the scan on a generated chain, reading only candidate blocks', async () => {
    configureLogCache(0);
    const db = await openDatabase({ engine: 'memory' });
    await writeSyntheticChain(db.kv, 400, 7);
    const ranges = [
      { fromBlock: '0x0', toBlock: 'latest' },
      { fromBlock: '0x17', toBlock: '0x120' },
      { fromBlock: '0x150', toBlock: '0x18f' },
    ];
    const scanned = FILTERS.flatMap((f) => ranges.map((r) => query(db, { ...f, ...r })));
    expect(scanned.some((r) => r.length > 50)).toBe(true);
    expect(scanned.some((r) => r.length === 0)).toBe(true);

    const ix = new LogIndexer(db, { history: 0, disabled: false, batchBlocks: 64 }, logger);
    await drain(ix);
    expect(readLogIndexRange(db.kv)).toMatchObject({ tail: 0, head: { number: 399 } });
    const indexed = FILTERS.flatMap((f) => ranges.map((r) => query(db, { ...f, ...r })));
    expect(indexed).toEqual(scanned);

    // A selective filter reads far fewer blocks than the range.
    const few = candidateBlocks(db.kv, { addresses: [ADDRESSES[3]!], topics: [[TOPICS[0]!], [TOPICS[1]!]] }, 0, 399);
    expect(few.length).toBeGreaterThan(0);
    expect(few.length).toBeLessThan(100);
    configureLogCache(32);
    await db.close();
  });

  it('gives the same logs as the scan on the execution-apis chain', async () => {
    const { db } = await buildTestChain(logger);
    const filters = [
      ...FILTERS,
      ...(query(db, { fromBlock: '0x0', toBlock: 'latest' }) as Array<{ address: string; topics: string[] }>)
        .slice(0, 6)
        .flatMap((l) => [
          { address: l.address },
          { topics: l.topics.slice(0, 1) },
          { address: l.address, topics: l.topics },
        ]),
    ].map((f) => ({ ...f, fromBlock: '0x0', toBlock: 'latest' }));
    const scanned = filters.map((f) => query(db, f));
    expect(scanned[0]!.length).toBeGreaterThan(0);
    const ix = new LogIndexer(db, { history: 0, disabled: false, batchBlocks: 5 }, logger);
    await drain(ix);
    expect(readLogIndexRange(db.kv)?.head.number).toBe(20);
    expect(filters.map((f) => query(db, f))).toEqual(scanned);
    await db.close();
  });

  it('keeps only the last N blocks, scanning below the tail, and follows reorgs', async () => {
    const db = await openDatabase({ engine: 'memory' });
    const blocks = await writeSyntheticChain(db.kv, 100, 3);
    const all = { fromBlock: '0x0', toBlock: 'latest' };
    const scanned = FILTERS.map((f) => query(db, { ...f, ...all }));
    const ix = new LogIndexer(db, { history: 30, disabled: false, batchBlocks: 16 }, logger);
    await drain(ix);
    expect(readLogIndexRange(db.kv)?.tail).toBe(70);
    expect(candidateBlocks(db.kv, { addresses: [], topics: [] }, 0, 69)).toEqual([]);
    expect(FILTERS.map((f) => query(db, { ...f, ...all }))).toEqual(scanned);

    // Reorg: blocks 90..99 replaced by another branch; before the indexer catches up, queries are still right.
    const next = mulberryRng(99).float;
    const b = db.kv.batch();
    let parent = blocks[89]!.hash;
    for (let n = 90; n < 100; n++) {
      const blk = makeBlock(n, parent, next, 1);
      writeSyntheticBlock(b, blk);
      chain.writeCanonicalHash(b, n, blk.hash);
      parent = blk.hash;
      if (n === 99) chain.writeHeadBlockHash(b, blk.hash);
    }
    await b.commit();
    const afterReorg = FILTERS.map((f) => query(db, { ...f, ...all }));
    expect(afterReorg).not.toEqual(scanned);
    // The scan's answer on the new branch, with the index ignored:
    const rangeBackup = readLogIndexRange(db.kv)!;
    await drain(ix);
    expect(readLogIndexRange(db.kv)?.head.hash).toEqual(parent);
    expect(FILTERS.map((f) => query(db, { ...f, ...all }))).toEqual(afterReorg);
    expect(rangeBackup.tail).toBe(70);

    // Disabling deletes the index; queries fall back to the scan.
    const off = new LogIndexer(db, { history: 30, disabled: true, batchBlocks: 16 }, logger);
    await drain(off);
    expect(readLogIndexRange(db.kv)).toBeUndefined();
    expect(candidateBlocks(db.kv, { addresses: [], topics: [] }, 0, 99)).toEqual([]);
    expect(FILTERS.map((f) => query(db, { ...f, ...all }))).toEqual(afterReorg);
    await db.close();
  });
});
