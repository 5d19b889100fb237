// State pruner mark phase (--gcmode full): the longest event-loop block of the mark, before (the synchronous mark
// the pruner used to run: walk every retained root, then list the unmarked trie nodes, in one go) and after (the
// sliced mark, StatePruner.markIfDue → markDone, ~5 ms slices). Workload (built outside the measured part): an LMDB
// state of PRUNER_ACCOUNTS accounts (default 200,000; every tenth with two storage slots) written 50,000 per block
// through ChainStore.commitBlock, roots from StateCommitment, then 6 blocks changing one balance each; reorg
// history and retention 2, so the older blocks' trie paths are unreachable. Both marks read the same state; the
// longest block and its p99 come from the event-loop delay monitor (1 ms resolution), total is the mark's wall time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { ChainStore } from '../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../src/main/exec/chain/genesis.js';
import { openDatabase } from '../src/main/exec/db/open.js';
import { TablePrefix, tablePrefix } from '../src/main/exec/db/schema.js';
import { retainedRoots, StatePruner, TrieMarker } from '../src/main/exec/history/statePruner.js';
import type { StateDiff } from '../src/main/exec/state/interface.js';
import { DbStateReader, EMPTY_CODE_HASH } from '../src/main/exec/state/stateStore.js';
import { type Header, headerHash } from '../src/main/primitives/block/header.js';
import { StateCommitment } from '../src/main/primitives/trie/commitment.js';
import type { BenchRow, BenchSuite } from './suite.js';

const PER_BLOCK = 50_000;
const RETAIN = 2;
const TRIE_NODES = tablePrefix(TablePrefix.trieNode);

const address = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`;
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** Commits a block on the head setting balances (i → i + 1 + bump) of accounts first..first+count-1. */
async function commit(store: ChainStore, first: number, count: number, bump = 0n): Promise<void> {
  const parent = store.head().header;
  const diff: StateDiff = { accounts: new Map(), codes: new Map() };
  for (let i = first; i < first + count; i++) {
    const storage = new Map<string, bigint>();
    if (i % 10 === 9) storage.set(slot(1), BigInt(i + 1)).set(slot(2), BigInt(i) + 7n);
    diff.accounts.set(address(i), {
      nonce: 0n,
      balance: BigInt(i + 1) + bump,
      codeHash: EMPTY_CODE_HASH,
      storage,
      storageCleared: false,
    });
  }
  const c = new StateCommitment(new DbStateReader(store.db.kv)).apply(parent.stateRoot, diff);
  const header: Header = {
    ...parent,
    parentHash: headerHash(parent),
    number: parent.number + 1n,
    stateRoot: c.root,
    timestamp: parent.timestamp + 2n,
  };
  await store.commitBlock({
    block: { header, transactions: [], uncles: [], withdrawals: undefined },
    hash: headerHash(header),
    receipts: [],
    diff,
    storageRoots: c.storageRoots,
    newNodes: c.newNodes,
  });
}

/** Runs `work` with the event-loop delay monitor and a GC observer on. */
async function measure(work: () => Promise<void>) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs = Math.max(gcMs, e.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  h.enable();
  // Idle turns either side let the monitor's timer fire before and right after the work.
  await new Promise((r) => setTimeout(r, 20));
  const t0 = performance.now();
  await work();
  const totalMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 20));
  h.disable();
  gc.disconnect();
  return { totalMs, maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, gcMs };
}

async function run(): Promise<BenchRow[]> {
  const accounts = Number(process.env.PRUNER_ACCOUNTS ?? 200_000);
  if (!Number.isSafeInteger(accounts) || accounts < 1) throw new Error(`PRUNER_ACCOUNTS: bad count ${accounts}`);
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-pruner-'));
  const db = await openDatabase({ datadir: dir });
  try {
    const store = new ChainStore(db, { reorgHistory: RETAIN });
    await store.initGenesis(
      parseGenesis({
        config: { chainId: 1 },
        gasLimit: 30_000_000,
        alloc: { [`0x${'aa'.repeat(20)}`]: { balance: 1 } },
      }),
    );
    const t = performance.now();
    for (let i = 0; i < accounts; i += PER_BLOCK) await commit(store, i, Math.min(PER_BLOCK, accounts - i));
    for (let n = 0; n < 6; n++) await commit(store, n, 1, 1000n);
    const buildMs = performance.now() - t;
    let nodes = 0;
    for (const _ of db.kv.iterate({ prefix: TRIE_NODES })) nodes++;

    const head = Number(store.head().number);
    let marked = 0;
    let unreachable = 0;
    const sync = await measure(async () => {
      const snap = db.kv.snapshot();
      try {
        const m = new TrieMarker();
        for (const r of retainedRoots({ kv: snap, ancients: db.ancients }, head, RETAIN).roots) m.markState(snap, r);
        for (const { key } of snap.iterate({ prefix: TRIE_NODES }))
          if (!m.marked.has(Buffer.from(key.subarray(1)).toString('latin1'))) unreachable++;
        marked = m.marked.size;
      } finally {
        snap.release();
      }
    });
    const pruner = new StatePruner(db, { retain: RETAIN, interval: 1 });
    const sliced = await measure(async () => {
      if (!pruner.markIfDue()) throw new Error('the pruner did not start a mark');
      await pruner.markDone();
    });

    const ms = (x: number) => `${x.toFixed(1)} ms`;
    const row = (task: string, r: typeof sync, note: string): BenchRow => ({
      task,
      opsPerSec: (nodes * 1000) / r.totalMs,
      meanMicros: (r.totalMs * 1000) / nodes,
      note: `${note}, total ${ms(r.totalMs)}, longest GC pause ${ms(r.gcMs)}`,
    });
    return [
      {
        task: `state: ${accounts} accounts`,
        opsPerSec: 0,
        meanMicros: 0,
        note: `${nodes} trie nodes (${marked} retained, ${unreachable} unreachable), built in ${ms(buildMs)}`,
      },
      row('synchronous mark (per trie node)', sync, `longest block ${ms(sync.maxMs)}`),
      row(
        'sliced mark (per trie node)',
        sliced,
        `longest block ${ms(sliced.maxMs)}, p99 ${ms(sliced.p99Ms)}, ${pruner.stats.slices} slices ` +
          `(longest ${ms(pruner.stats.longestSliceMs)})`,
      ),
    ];
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const prunerSuite: BenchSuite = { name: 'pruner', run };
