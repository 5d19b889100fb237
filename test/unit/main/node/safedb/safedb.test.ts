// The safe head database: records by L1 block, lookups at or before an L1 block, truncation on reset, persistence
// across reopening the LMDB directory, and the disabled store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { DisabledSafeDb, SafeDb } from '../../../../../src/main/node/safedb/safedb.js';
import type { L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const h = (tag: string, n: number) => `0x${tag.repeat(31)}${n.toString(16).padStart(2, '0')}`;
const l1 = (n: number) => ({ hash: h('1a', n), number: n });
const l2 = (n: number) => ({ hash: h('2b', n), number: n });
const l2ref = (n: number, origin: number): L2BlockRef => ({
  ...l2(n),
  parentHash: h('2b', n - 1),
  timestamp: n,
  l1origin: l1(origin),
  sequenceNumber: 0,
});

describe('SafeDb', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tern-safedb-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers the safe head at or before an L1 block, and keeps it across a reopen', async () => {
    let db = SafeDb.open(dir, { logger });
    await db.safeHeadUpdated(l2(10), l1(5));
    await db.safeHeadUpdated(l2(20), l1(8));
    expect(await db.safeHeadAtL1(5)).toEqual({ l1Block: l1(5), safeHead: l2(10) });
    expect(await db.safeHeadAtL1(7)).toEqual({ l1Block: l1(5), safeHead: l2(10) });
    expect(await db.safeHeadAtL1(100)).toEqual({ l1Block: l1(8), safeHead: l2(20) });
    await expect(db.safeHeadAtL1(4)).rejects.toMatchObject({ code: 'SAFEDB_NOT_FOUND' });
    await db.close();
    db = SafeDb.open(dir, { logger });
    expect(await db.safeHeadAtL1(9)).toEqual({ l1Block: l1(8), safeHead: l2(20) });
    await db.close();
  });

  it('forgets records at and past a reset safe head, keeping the reset point at the first removed L1 block', async () => {
    const db = SafeDb.open(dir, { logger });
    await db.safeHeadUpdated(l2(10), l1(5));
    await db.safeHeadUpdated(l2(20), l1(8));
    await db.safeHeadUpdated(l2(30), l1(11));
    await db.safeHeadReset(l2ref(15, 6));
    expect(await db.safeHeadAtL1(8)).toEqual({ l1Block: l1(8), safeHead: l2(15) });
    expect(await db.safeHeadAtL1(20)).toEqual({ l1Block: l1(8), safeHead: l2(15) });
    expect(await db.safeHeadAtL1(6)).toEqual({ l1Block: l1(5), safeHead: l2(10) });
    // A reset before every record leaves nothing, as op-node does.
    await db.safeHeadReset(l2ref(2, 1));
    await expect(db.safeHeadAtL1(100)).rejects.toMatchObject({ code: 'SAFEDB_NOT_FOUND' });
    await db.close();
  });

  it('says it is disabled without --safedb.path', async () => {
    const db = new DisabledSafeDb();
    await db.safeHeadUpdated();
    await expect(db.safeHeadAtL1()).rejects.toThrow(/--safedb.path/);
  });
});
