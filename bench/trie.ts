// Merkle-Patricia roots: the secure root of 100,000 random 32-byte keys with 70-byte values (a storage-trie sized
// load) through the native builder, the JS builder and @ethereumjs/mpt (put all + root, the honest baseline); and
// the per-block work of the incremental trie, 1,000 and 10,000 random updates on a 100,000-key trie, against the
// same updates in @ethereumjs/mpt and against rebuilding the whole root natively.
import { randomBytes } from 'node:crypto';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Bench, type Task } from 'tinybench';
import { nativeFunction, nativeStatus } from '../src/main/native/index.js';
import { keccak256Batch, keccak256Js } from '../src/main/native/keccak.js';
import type { TrieUpdate } from '../src/main/primitives/trie/interface.js';
import { MemoryNodeStore } from '../src/main/primitives/trie/memory.js';
import { MerkleTrie } from '../src/main/primitives/trie/merkleTrie.js';
import { nodeCount } from '../src/main/primitives/trie/packedNodes.js';
import {
  EMPTY_TRIE_ROOT,
  secureTrieRoot,
  secureTrieRootJs,
  type TrieEntry,
  trieRootOf,
} from '../src/main/primitives/trie/root.js';
import type { BenchRow, BenchSuite } from './suite.js';

const KEYS = 100_000;
const VALUE_LEN = 70;
const BLOCK_SIZES = [1_000, 10_000] as const;
/** @ethereumjs/mpt takes ~18 s for the full build here: two runs, no warmup. */
const MPT_RUNS = 2;

const NAMES = {
  native: `secureTrieRoot ${KEYS / 1000}k native`,
  js: `secureTrieRoot ${KEYS / 1000}k JS builder`,
  jsPure: `secureTrieRoot ${KEYS / 1000}k JS, noble keccak`,
  mpt: `secureTrieRoot ${KEYS / 1000}k @ethereumjs/mpt`,
  incrementalBuild: `applyUpdates ${KEYS / 1000}k into empty`,
  apply: (n: number) => `applyUpdates ${n / 1000}k on ${KEYS / 1000}k`,
  mptApply: (n: number) => `mpt ${n / 1000}k puts + root on ${KEYS / 1000}k`,
} as const;

function stats(task: Task | undefined): { mean: number; note: string } | { error: string } | undefined {
  if (task === undefined) return undefined;
  const r = task.result;
  if (r.state !== 'completed' && r.state !== 'aborted-with-statistics') {
    return { error: r.state === 'errored' ? r.error.message : r.state };
  }
  return { mean: r.latency.mean, note: `±${r.latency.rme.toFixed(1)}%, ${r.latency.samplesCount} runs` };
}

/** One row per task: ms per run in the note, `ops/s` = runs per second, and the ratio to a baseline. */
function row(task: Task | undefined, baselineMs: number | undefined, baselineName: string, extra = ''): BenchRow[] {
  const s = stats(task);
  if (s === undefined || task === undefined) return [];
  if ('error' in s) return [{ task: task.name, opsPerSec: 0, meanMicros: 0, note: s.error }];
  const ratio =
    baselineMs !== undefined && s.mean > 0 ? `${(baselineMs / s.mean).toFixed(1)}× faster than ${baselineName}; ` : '';
  return [
    {
      task: task.name,
      opsPerSec: s.mean > 0 ? 1000 / s.mean : 0,
      meanMicros: s.mean * 1000,
      note: `${s.mean.toFixed(1)} ms/run; ${ratio}${extra}${s.note}`,
    },
  ];
}

function meanOf(task: Task | undefined): number | undefined {
  const s = stats(task);
  return s !== undefined && 'mean' in s ? s.mean : undefined;
}

async function run(): Promise<BenchRow[]> {
  const entries: TrieEntry[] = Array.from({ length: KEYS }, () => [
    new Uint8Array(randomBytes(32)),
    new Uint8Array(randomBytes(VALUE_LEN)),
  ]);
  const keys = entries.map((e) => e[0]);
  const values = entries.map((e) => e[1]);
  let sink = 0;

  // The incremental trie's base state: the same 100k entries, keys hashed as the state trie does.
  const digests = keccak256Batch(keys);
  const hashed = keys.map((_, i) => digests.subarray(32 * i, 32 * i + 32));
  const store = new MemoryNodeStore();
  const trie = new MerkleTrie(store);
  const fullUpdates = hashed.map((k, i): TrieUpdate => [k, values[i] as Uint8Array]);
  const base = trie.applyUpdates(EMPTY_TRIE_ROOT, fullUpdates);
  store.putAll(base.newNodes);
  if (Buffer.compare(base.root, secureTrieRoot(entries)) !== 0) throw new Error('incremental root differs');

  // Per-block batches: 60% changed values of existing keys, 30% new keys, 10% deletions.
  const blocks = BLOCK_SIZES.map((n) => {
    const raw: [Uint8Array, Uint8Array | null][] = [];
    for (let i = 0; i < n; i++) {
      const pick = (i * 7919) % KEYS;
      const kind = i % 10;
      if (kind < 6) raw.push([keys[pick] as Uint8Array, new Uint8Array(randomBytes(VALUE_LEN))]);
      else if (kind < 9) raw.push([new Uint8Array(randomBytes(32)), new Uint8Array(randomBytes(VALUE_LEN))]);
      else raw.push([keys[pick] as Uint8Array, null]);
    }
    const d = keccak256Batch(raw.map((u) => u[0]));
    const updates = raw.map(([, v], i): TrieUpdate => [d.subarray(32 * i, 32 * i + 32), v]);
    return { n, raw, updates };
  });

  const fast = new Bench({ name: 'trie', time: 3000, iterations: 5, warmupIterations: 2, warmupTime: 500 });
  if (nativeFunction('secureTrieRoot') !== undefined) {
    fast.add(NAMES.native, () => {
      sink ^= secureTrieRoot(entries)[0] as number;
    });
  }
  fast.add(NAMES.js, () => {
    sink ^= secureTrieRootJs(entries)[0] as number;
  });
  fast.add(NAMES.jsPure, () => {
    sink ^= trieRootOf(keys.map(keccak256Js), values, keccak256Js)[0] as number;
  });
  fast.add(NAMES.incrementalBuild, () => {
    sink ^= trie.applyUpdates(EMPTY_TRIE_ROOT, fullUpdates).root[0] as number;
  });
  for (const b of blocks) {
    // Nothing is persisted, so every run applies the block to the same base root.
    fast.add(NAMES.apply(b.n), () => {
      sink ^= trie.applyUpdates(base.root, b.updates).root[0] as number;
    });
  }
  await fast.run();

  // The baseline: a fresh @ethereumjs/mpt per run, every key put, then its root. The last one stays for the
  // per-block rows, which put a block's updates inside a checkpoint and revert it afterwards.
  let mpt: MerklePatriciaTrie | undefined;
  const slow = new Bench({ name: 'trie baseline', time: 0, iterations: MPT_RUNS, warmup: false });
  slow.add(NAMES.mpt, async () => {
    mpt = new MerklePatriciaTrie({ useKeyHashing: true });
    for (const [k, v] of entries) await mpt.put(k, v);
    sink ^= mpt.root()[0] as number;
  });
  await slow.run();
  const perBlock = new Bench({ name: 'trie baseline per block', time: 0, iterations: 3, warmup: false });
  for (const b of blocks) {
    perBlock.add(NAMES.mptApply(b.n), async () => {
      if (mpt === undefined) throw new Error('baseline trie was not built');
      mpt.checkpoint();
      for (const [k, v] of b.raw) await mpt.put(k, v);
      sink ^= mpt.root()[0] as number;
      await mpt.revert();
    });
  }
  await perBlock.run();

  const byName = new Map([...fast.tasks, ...slow.tasks, ...perBlock.tasks].map((t) => [t.name, t]));
  const mptMs = meanOf(byName.get(NAMES.mpt));
  const nativeMs = meanOf(byName.get(NAMES.native));
  const rows: BenchRow[] = [
    ...row(byName.get(NAMES.native), mptMs, 'mpt'),
    ...row(byName.get(NAMES.js), mptMs, 'mpt', 'keys hashed and nodes hashed through the native keccak; '),
    ...row(byName.get(NAMES.jsPure), mptMs, 'mpt', 'no native code at all (the fallback); '),
    ...row(byName.get(NAMES.mpt), undefined, '', 'put all + root, the baseline; '),
    ...row(byName.get(NAMES.incrementalBuild), mptMs, 'mpt', `${nodeCount(base.newNodes)} nodes; `),
  ];
  for (const b of blocks) {
    const mine = meanOf(byName.get(NAMES.apply(b.n)));
    const rebuild =
      nativeMs !== undefined && mine !== undefined
        ? `${(nativeMs / mine).toFixed(1)}× faster than a native full rebuild; `
        : '';
    rows.push(...row(byName.get(NAMES.apply(b.n)), meanOf(byName.get(NAMES.mptApply(b.n))), 'mpt per block', rebuild));
    rows.push(...row(byName.get(NAMES.mptApply(b.n)), undefined, '', 'checkpoint, puts, root, revert; '));
  }
  const status = nativeStatus();
  if (!status.loaded) {
    rows.unshift({ task: 'native module', opsPerSec: 0, meanMicros: 0, note: `not loaded: ${status.error ?? '?'}` });
  }
  // Keeps the roots observable so no engine can drop the calls; the value itself means nothing.
  if (sink === -1) rows.push({ task: 'sink', opsPerSec: 0, meanMicros: 0 });
  return rows;
}

export const trieSuite: BenchSuite = { name: 'trie', run };
