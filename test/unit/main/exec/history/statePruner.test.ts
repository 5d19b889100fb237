// The state pruner's mark phase runs in slices on the event loop: it yields between slices, keeps the state of a
// block committed while it runs, and deletes exactly what the synchronous mark would.
import { afterEach, describe, expect, it } from 'vitest';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { readTrieNode } from '../../../../../src/main/exec/db/state.js';
import { retainedRoots, StatePruner, TrieMarker } from '../../../../../src/main/exec/history/statePruner.js';
import { address, balances, type StateChain, stateChain } from './stateChain.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const trieKeys = (c: StateChain) =>
  new Set([...c.db.kv.iterate({ prefix: Uint8Array.of(0x74) })].map((e) => hex(e.key)));

/** Nodes of the state at `root` missing from the live store. */
function missingNodes(c: StateChain, root: Uint8Array): number {
  let missing = 0;
  const m = new TrieMarker();
  m.push(root);
  m.drain((h) => {
    const v = readTrieNode(c.db.kv, h);
    if (v === undefined) missing++;
    return v;
  }, Number.POSITIVE_INFINITY);
  return missing;
}

/** Genesis, block 1 with `accounts` accounts, then blocks 2..6 each changing account 0 (and a few others). */
async function build(accounts: number): Promise<StateChain & { roots: Uint8Array[] }> {
  const c = await stateChain({ reorgHistory: 2 });
  const roots = [c.store.head().header.stateRoot];
  roots.push((await c.block(balances(0, accounts))).header.stateRoot);
  for (let n = 2; n <= 6; n++)
    roots.push((await c.block(new Map([[address(0), 777n + BigInt(n === 2 ? 0 : n)]]))).header.stateRoot);
  return { ...c, roots };
}

let chains: StateChain[] = [];
afterEach(async () => {
  for (const c of chains) await c.db.close();
  chains = [];
});

describe('incremental mark (state pruner)', () => {
  it('yields to the event loop between slices during a large mark', async () => {
    const c = await build(3000);
    chains.push(c);
    const pruner = new StatePruner(c.db, { retain: 2, interval: 1, sliceNodes: 64 });
    expect(pruner.markIfDue()).toBe(true);
    expect(pruner.marking).toBe(true);
    let turns = 0;
    const tick = () => {
      turns++;
      if (pruner.marking) setImmediate(tick);
    };
    setImmediate(tick);
    await pruner.markDone();
    expect(pruner.marking).toBe(false);
    expect(pruner.sweeping).toBe(true);
    // ~4000+ nodes in slices of 64: dozens of slices, and the event loop turned between them.
    expect(pruner.stats.slices).toBeGreaterThan(30);
    expect(turns).toBeGreaterThan(30);
    while (pruner.sweeping) await pruner.sweepStep();
    for (const root of c.roots.slice(4)) expect(missingNodes(c, root)).toBe(0);
  });

  it('deletes exactly what the synchronous mark finds unreachable', async () => {
    const c = await build(2000);
    chains.push(c);
    // The synchronous reference: retained roots over one snapshot, each account trie walked at once.
    const snap = c.db.kv.snapshot();
    const reference = new TrieMarker();
    try {
      const { roots } = retainedRoots({ kv: snap }, 6, 2);
      for (const r of roots) reference.markState(snap, r);
    } finally {
      snap.release();
    }
    const before = trieKeys(c);
    const expected = new Set(
      [...before].filter((k) => reference.marked.has(Buffer.from(k.slice(2), 'hex').toString('latin1'))),
    );
    expect(expected.size).toBeLessThan(before.size);

    const pruner = new StatePruner(c.db, { retain: 2, interval: 1, sliceNodes: 16, batchNodes: 100 });
    expect(pruner.markIfDue()).toBe(true);
    let deleted = 0;
    while (pruner.sweeping) deleted += await pruner.sweepStep();
    expect(trieKeys(c)).toEqual(expected);
    expect(deleted).toBe(before.size - expected.size);
    // The retained states are whole; block 2's (out of the window) is not.
    for (const root of c.roots.slice(4)) expect(missingNodes(c, root)).toBe(0);
    expect(missingNodes(c, c.roots[2]!)).toBeGreaterThan(0);
  });

  it('keeps the nodes of a block committed mid-mark, even nodes the mark found unreachable', async () => {
    const c = await build(3000);
    chains.push(c);
    const pruner = new StatePruner(c.db, { retain: 2, interval: 1, sliceNodes: 32, batchNodes: 50 });
    // The history service's listener.
    const off = headEvents(c.db).on(() => {
      if (pruner.sweeping) void pruner.sweepStep();
    });
    try {
      expect(pruner.markIfDue()).toBe(true);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      expect(pruner.marking).toBe(true);
      // Block 7 puts account 0 back to its block-2 balance: the whole state of block 2 again, whose own nodes (out
      // of the window, so not marked from the snapshot) are re-created by this commit.
      const b7 = await c.block(new Map([[address(0), 777n]]));
      expect(hex(b7.header.stateRoot)).toBe(hex(c.roots[2]!));
      // Block 8 moves on, so block 7 (still in the window) is no longer the head when the sweep starts.
      const b8 = await c.block(new Map([[address(0), 778n]]));
      expect(pruner.marking).toBe(true);
      await pruner.markDone();
      while (pruner.sweeping) await pruner.sweepStep();
      expect(missingNodes(c, b7.header.stateRoot)).toBe(0);
      expect(missingNodes(c, b8.header.stateRoot)).toBe(0);
      // A block committed during the sweep keeps its state too.
      expect(pruner.markIfDue()).toBe(true);
      await pruner.markDone();
      const b9 = await c.block(new Map([[address(0), 777n]]));
      while (pruner.sweeping) await pruner.sweepStep();
      expect(missingNodes(c, b9.header.stateRoot)).toBe(0);
      expect(missingNodes(c, b8.header.stateRoot)).toBe(0);
    } finally {
      off();
    }
  });

  it('stop() ends a mark under way and releases its snapshot', async () => {
    const c = await build(1000);
    chains.push(c);
    const pruner = new StatePruner(c.db, { retain: 2, interval: 1, sliceNodes: 8 });
    expect(pruner.markIfDue()).toBe(true);
    await new Promise((r) => setImmediate(r));
    await pruner.stop();
    expect(pruner.sweeping).toBe(false);
    expect(pruner.markIfDue()).toBe(false);
  });
});
