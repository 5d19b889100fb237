// Side blocks that can no longer become canonical leave no rows behind; side blocks that still can keep theirs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { freezeBlocks } from '../../../../../src/main/exec/db/chain.js';
import { readTrieNode } from '../../../../../src/main/exec/db/state.js';
import { HistoryService } from '../../../../../src/main/exec/history/service.js';
import { SideBlockPruner, sideBlockCutoff } from '../../../../../src/main/exec/history/sidePruner.js';
import { StatePruner } from '../../../../../src/main/exec/history/statePruner.js';
import { address, type StateChain, stateChain } from './stateChain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** Every key of the store, as hex. */
const allKeys = (c: StateChain) => new Set([...c.db.kv.iterate({})].map((e) => hex(e.key)));
/** Per-block tables: header, hash → number, body, receipts, reverse and forward changes. */
const PER_BLOCK = ['h', 'H', 'b', 'r', 'd', 'f'].map((t) => t.charCodeAt(0));
const rowsOf = (c: StateChain, hash: Uint8Array) =>
  [...c.db.kv.iterate({})]
    .filter((e) => PER_BLOCK.includes(e.key[0]!) && hex(e.key).endsWith(hex(hash)))
    .map((e) => String.fromCharCode(e.key[0]!))
    .sort();
const drain = async (p: SideBlockPruner) => {
  while (await p.step()) {}
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
let chains: StateChain[] = [];
afterEach(async () => {
  for (const c of chains) await c.db.close();
  chains = [];
});

/** Canonical blocks 1..6, side block S2 on block 1 and S5 on block 4. */
async function build(reorgHistory = 64) {
  const c = await stateChain({ reorgHistory });
  chains.push(c);
  const canon = [c.store.head().hash];
  for (let n = 1; n <= 6; n++) canon.push((await c.block(new Map([[address(n), BigInt(n)]]))).hash);
  const s2 = await c.block(new Map([[address(0), 42n]]), { parent: canon[1], side: true, salt: 1 });
  const s5 = await c.block(new Map([[address(0), 55n]]), { parent: canon[4], side: true, salt: 1 });
  return { c, canon, s2: s2.hash, s5: s5.hash };
}

describe('side block pruning', () => {
  it('a side block at or below finalized leaves no rows behind; one above it keeps them', async () => {
    const { c, canon, s2, s5 } = await build();
    expect(rowsOf(c, s2)).toEqual(['H', 'b', 'f', 'h', 'r']);
    // Read it once so the block cache holds it.
    expect(c.store.blockByHash(s2)?.header.number).toBe(2n);
    expect(c.db.blockCache.get('block', s2)).toBeDefined();
    await c.store.setForkchoiceMarkers(canon[3], canon[3]);
    expect(sideBlockCutoff(c.db)).toBe(3);
    const before = allKeys(c);
    await drain(new SideBlockPruner(c.db, { batchBlocks: 2 }));
    const after = allKeys(c);
    const gone = [...before].filter((k) => !after.has(k));
    // Exactly S2's rows went, nothing else (its trie nodes are the state pruner's).
    expect(gone.length).toBe(5);
    for (const k of gone) expect(k.endsWith(hex(s2))).toBe(true);
    expect(rowsOf(c, s2)).toEqual([]);
    expect(c.db.blockCache.get('block', s2)).toBeUndefined();
    expect(c.store.blockByHash(s2)).toBeUndefined();
    expect(c.store.hasState(s2)).toBe(false);
    // S5 is above finalized: all there, and it can still become the head.
    expect(rowsOf(c, s5)).toEqual(['H', 'b', 'f', 'h', 'r']);
    expect(await c.store.setHead(s5)).toEqual({ unwound: 2, applied: 1 });
    expect(hex(c.store.head().hash)).toBe(hex(s5));
    expect(c.store.stateReader().getAccount(Buffer.from(address(0).slice(2), 'hex'))?.balance).toBe(55n);
    // The unwound blocks 5 and 6 are side blocks now, above finalized: kept (with the forward changes setHead wrote).
    expect(rowsOf(c, canon[6]!)).toEqual(['H', 'b', 'f', 'h', 'r']);
  });

  it('with nothing finalized, side blocks below the reorg window go (setHead could not reach them)', async () => {
    const { c, canon, s2, s5 } = await build(3);
    // Reverse changes are kept for blocks 4..6: a fork below block 4 cannot be unwound to.
    expect(sideBlockCutoff(c.db)).toBe(3);
    await expect(c.store.setHead(s2)).rejects.toMatchObject({ code: 'REORG_TOO_DEEP' });
    await drain(new SideBlockPruner(c.db, { batchBlocks: 100 }));
    expect(rowsOf(c, s2)).toEqual([]);
    expect(rowsOf(c, s5)).toEqual(['H', 'b', 'f', 'h', 'r']);
    expect(rowsOf(c, canon[2]!)).toEqual(['H', 'b', 'h', 'r']);
    expect((await c.store.setHead(s5)).applied).toBe(1);
  });

  it('removes the change sets the freezer leaves behind when it drops side blocks at frozen heights', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-side-'));
    dirs.push(dir);
    const c = await stateChain({ reorgHistory: 64, datadir: dir });
    chains.push(c);
    const canon = [c.store.head().hash];
    for (let n = 1; n <= 6; n++) canon.push((await c.block(new Map([[address(n), BigInt(n)]]))).hash);
    const s2 = (await c.block(new Map([[address(0), 42n]]), { parent: canon[1], side: true, salt: 1 })).hash;
    await c.store.setForkchoiceMarkers(canon[4], canon[4]);
    expect(await freezeBlocks(c.db, { threshold: 2 })).toBe(5); // blocks 0..4
    // The freezer deleted S2's block data but not its forward changes.
    expect(rowsOf(c, s2)).toEqual(['f']);
    await drain(new SideBlockPruner(c.db, { batchBlocks: 10 }));
    expect(rowsOf(c, s2)).toEqual([]);
    // Frozen canonical blocks are untouched (read from the ancient store).
    expect(c.store.blockByNumber(2n)?.header.number).toBe(2n);
    expect(rowsOf(c, canon[2]!)).toEqual(['H', 'd']);
  });

  it('runs in the history service, after which the state pruner no longer keeps the side state', async () => {
    const { c, canon, s2 } = await build();
    await c.store.setForkchoiceMarkers(canon[5], canon[5]);
    const s2Root = c.store.headerByHash(s2)!.stateRoot;
    const svc = await HistoryService.open(c.db, c.store.config(), { logHistory: 0 }, { logger }, false);
    await svc.drain();
    expect(rowsOf(c, s2)).toEqual([]);
    expect([...c.db.kv.iterate({ prefix: Uint8Array.of(0x66) })].length).toBe(0);
    // Forward changes gone: the state pruner's retained roots no longer include side states.
    const pruner = new StatePruner(c.db, { retain: 2, interval: 1 });
    expect(readTrieNode(c.db.kv, s2Root)).toBeDefined();
    expect(pruner.markIfDue()).toBe(true);
    while (pruner.sweeping) await pruner.sweepStep();
    expect(readTrieNode(c.db.kv, s2Root)).toBeUndefined();
    expect(readTrieNode(c.db.kv, c.store.head().header.stateRoot)).toBeDefined();
    await svc.stop();
  });
});
