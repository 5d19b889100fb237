// --history.logs.export against a second, independent model of geth's log index: a value-by-value port of the
// logIterator state machine and the map renderer loop of core/filtermaps (delimiters, skip-to-boundary padding,
// block pointers recorded at block starts, a map's last block taken after each step), run over the execution-apis
// test chain with map and epoch sizes small enough for it to fill many epochs (2 values a map also puts its 3-value
// logs across whole maps, the padding case). The exporter's block-span arithmetic
// must give the same checkpoints, byte for byte in geth's file format, and rewrite the file only when the finalized
// block moves far enough to complete another epoch.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { readReceipts } from '../../../../../src/main/exec/chain/chainStore.js';
import * as chain from '../../../../../src/main/exec/db/chain.js';
import type { Database } from '../../../../../src/main/exec/db/open.js';
import {
  formatCheckpoints,
  type LogCheckpoint,
  type LogValueParams,
  placeBlock,
} from '../../../../../src/main/exec/history/logCheckpoints.js';
import { HistoryService } from '../../../../../src/main/exec/history/service.js';
import { buildTestChain } from '../rpc/chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const dir = mkdtempSync(join(tmpdir(), 'tern-lvcp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ChainLogs {
  hashes: Uint8Array[];
  /** Per block: each log's topic count. */
  topics: number[][];
}

function chainLogs(db: Database, head: number): ChainLogs {
  const hashes: Uint8Array[] = [];
  const topics: number[][] = [];
  for (let n = 0; n <= head; n++) {
    const hash = chain.readCanonicalHash(db, n) as Uint8Array;
    hashes.push(hash);
    topics.push((readReceipts(db, BigInt(n), hash) ?? []).flatMap((r) => r.logs.map((l) => l.topics.length)));
  }
  return { hashes, topics };
}

/** geth's indexer, one log value at a time (filtermaps logIterator.next/enforceValidState and renderMap's loop). */
function reference(c: ChainLogs, head: number, final: number, p: LogValueParams): LogCheckpoint[] {
  const perMap = 2 ** p.logValuesPerMap;
  const it = { block: 0, log: 0, topic: 0, lv: 0, delimiter: false, skip: false, finished: false, blockStart: true };
  const enforce = () => {
    if (it.delimiter || it.finished || it.skip) return;
    const logs = c.topics[it.block] as number[];
    for (; it.log < logs.length; it.log++) {
      const topics = logs[it.log] as number;
      if (it.topic === 0 && topics + 1 > perMap - (it.lv % perMap)) {
        it.skip = true;
        return;
      }
      if (it.topic <= topics) return;
      it.topic = 0;
    }
    if (it.block === head) it.finished = true;
    else it.delimiter = true;
  };
  const next = () => {
    if (it.skip) {
      it.lv++;
      if (it.lv % perMap === 0) it.skip = false;
      return;
    }
    if (it.finished) return;
    if (it.delimiter) {
      it.delimiter = false;
      it.block++;
      it.log = 0;
      it.topic = 0;
      it.blockStart = true;
    } else {
      it.topic++;
      it.blockStart = false;
    }
    it.lv++;
    enforce();
  };
  enforce();
  const pointers = new Map<number, number>([[0, 0]]);
  const lastBlock = new Map<number, number>();
  for (let map = 0; !it.finished; map++) {
    while (it.lv < (map + 1) * perMap && !it.finished) {
      next();
      if (!it.skip) {
        lastBlock.set(map, it.block);
        if (it.blockStart) pointers.set(it.block, it.lv);
      }
    }
  }
  const epochs = Math.floor((pointers.get(final + 1) as number) / 2 ** (p.logValuesPerMap + p.logMapsPerEpoch));
  return Array.from({ length: epochs }, (_, e) => {
    const b = lastBlock.get(((e + 1) << p.logMapsPerEpoch) - 1) as number;
    return { blockNumber: b, blockId: c.hashes[b] as Uint8Array, firstIndex: pointers.get(b) as number };
  });
}

async function setFinalized(db: Database, number: number): Promise<void> {
  const b = db.kv.batch();
  chain.writeFinalizedBlockHash(b, chain.readCanonicalHash(db, number) as Uint8Array);
  await b.commit();
}

describe('log index checkpoint export', () => {
  it('writes the file in geth’s format', () => {
    const id = Uint8Array.from({ length: 32 }, (_, i) => i);
    expect(
      formatCheckpoints([
        { blockNumber: 7, blockId: id, firstIndex: 65535 },
        { blockNumber: 9, blockId: id, firstIndex: 131071 },
      ]),
    ).toBe(
      '[\n' +
        `{"blockNumber": 7, "blockId": "0x${Buffer.from(id).toString('hex')}", "firstIndex": 65535},\n` +
        `{"blockNumber": 9, "blockId": "0x${Buffer.from(id).toString('hex')}", "firstIndex": 131071}\n` +
        ']\n',
    );
  });

  it('places values as geth: padding before a log that would cross a map, the pointer at its first log', () => {
    const p = { logValuesPerMap: 2, logMapsPerEpoch: 0 }; // 4 values a map
    expect(placeBlock(0, [], true, p)).toEqual({ start: 0, pointer: 0, end: 1 });
    // At 3, a 2-value log does not fit in the map's last slot: it starts at 4, and so does the block.
    expect(placeBlock(3, [2, 1], true, p)).toEqual({ start: 3, pointer: 4, end: 8 });
    expect(placeBlock(3, [1, 2], false, p)).toEqual({ start: 3, pointer: 3, end: 6 });
  });

  for (const params of [
    { logValuesPerMap: 1, logMapsPerEpoch: 0 },
    { logValuesPerMap: 2, logMapsPerEpoch: 1 },
    { logValuesPerMap: 3, logMapsPerEpoch: 0 },
    { logValuesPerMap: 2, logMapsPerEpoch: 2 },
  ]) {
    it(`matches geth's indexer on the execution-apis chain (2^${params.logValuesPerMap} values a map, 2^${params.logMapsPerEpoch} maps an epoch)`, async () => {
      const { db, store } = await buildTestChain(logger, undefined, { forkchoice: false });
      const head = Number(store.head().number);
      const logs = chainLogs(db, head);
      expect(logs.topics.flat().length).toBeGreaterThan(5);
      const file = join(dir, `cp-${params.logValuesPerMap}-${params.logMapsPerEpoch}.json`);
      const svc = await HistoryService.open(
        db,
        store.config(),
        { logExportFile: file, logHistory: 0, batchBlocks: 3, logValueParams: params },
        { logger },
        false,
      );
      // No finalized block yet: nothing written.
      await svc.drain();
      expect(existsSync(file)).toBe(false);

      let written = 0;
      for (const final of [4, 11, head - 1]) {
        await setFinalized(db, final);
        await svc.drain();
        const expected = reference(logs, head, final, params);
        if (expected.length > 0) {
          written++;
          expect(readFileSync(file, 'utf8'), `finalized ${final}`).toBe(formatCheckpoints(expected));
        }
      }
      expect(written).toBeGreaterThan(0);
      // A finalized head has no block after it: geth keeps the last file.
      const before = readFileSync(file, 'utf8');
      await setFinalized(db, head);
      await svc.drain();
      expect(readFileSync(file, 'utf8')).toBe(before);
    });
  }

  it('is off without the flag and with --history.logs.disable', async () => {
    const { db, store } = await buildTestChain(logger, undefined, { forkchoice: false });
    expect((await HistoryService.open(db, store.config(), {}, { logger }, false)).checkpoints).toBeUndefined();
    const off = await HistoryService.open(
      db,
      store.config(),
      { logExportFile: join(dir, 'x'), logsDisabled: true },
      { logger },
      false,
    );
    expect(off.checkpoints).toBeUndefined();
  });
});
