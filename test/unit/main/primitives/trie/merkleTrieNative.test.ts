// The native incremental trie update (native/src/trie_update.rs) against the JS one in merkleTrie.ts: the same
// roots and the same packed new nodes (hashes, RLP bytes and offsets), byte for byte, over random batches (sets and
// deletes, into empty and existing tries); and the
// same TernError codes for missing and malformed nodes. Skipped where the native module is not loaded (TERN_NATIVE=0
// or no build), unless TERN_REQUIRE_NATIVE=1.
import { describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../bench/rng.js';
import { TernError } from '../../../../../src/main/common/errors.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { hasNativeTrieUpdate, NATIVE_TRIE_MAX_KEY } from '../../../../../src/main/native/trie.js';
import type { PackedNodes, TrieUpdate } from '../../../../../src/main/primitives/trie/interface.js';
import { MemoryNodeStore } from '../../../../../src/main/primitives/trie/memory.js';
import { MerkleTrie, type TrieJob } from '../../../../../src/main/primitives/trie/merkleTrie.js';
import { checkNodes, eachNode, nodeBuffers, nodeCount } from '../../../../../src/main/primitives/trie/packedNodes.js';
import { EMPTY_TRIE_ROOT, type TrieEntry, trieRoot } from '../../../../../src/main/primitives/trie/root.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const nativeRequired = process.env.TERN_REQUIRE_NATIVE === '1';

const rng = xorshiftRng;

type Result = { roots: Uint8Array[]; newNodes: PackedNodes };

/** The whole packed form, and node by node (so a difference names the node). */
function show(r: Result): { roots: string[]; hashes: string; rlps: string; offsets: number[]; nodes: string[] } {
  checkNodes(r.newNodes);
  return {
    roots: r.roots.map(hex),
    hashes: hex(r.newNodes.hashes),
    rlps: hex(r.newNodes.rlps),
    offsets: [...r.newNodes.offsets],
    nodes: [...eachNode(r.newNodes)].map(([h, rlp]) => `${hex(h)}:${hex(rlp)}`),
  };
}

/** Runs both implementations on the same jobs; expects identical output and returns it. */
function both(trie: MerkleTrie, jobs: TrieJob[]): Result {
  const js = trie.applyUpdatesManyJs(jobs);
  const native = trie.applyUpdatesManyNative(jobs);
  expect(native).toBeDefined();
  expect(show(native as Result)).toEqual(show(js));
  for (const [h, rlp] of eachNode(js.newNodes)) expect(hex(h)).toBe(hex(keccak256(rlp)));
  return native as Result;
}

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
}

/** Several tries (a model map each) over one store, updated by random batches through both implementations. */
function randomRun(seed: number, opts: { tries: number; rounds: number; keyLen: () => number; prefix: Uint8Array }) {
  const r = rng(seed);
  const store = new MemoryNodeStore();
  const trie = new MerkleTrie(store);
  const models = Array.from({ length: opts.tries }, () => new Map<string, Uint8Array>());
  const roots = models.map(() => EMPTY_TRIE_ROOT);
  const randomKey = (): Uint8Array => {
    const len = opts.keyLen();
    if (r.int(2) === 0) {
      // Keys sharing a long prefix: deep extensions, splits and collapses.
      const key = r.bytes(len);
      key.set(opts.prefix.subarray(0, Math.max(0, Math.min(len - 1, opts.prefix.length))));
      return key;
    }
    return r.bytes(len);
  };
  const randomValue = (): Uint8Array | null => {
    const k = r.int(6);
    if (k === 0) return null;
    if (k === 1) return new Uint8Array(0);
    if (k === 2) return r.bytes(1 + r.int(3)); // embedded leaves
    return r.bytes(1 + r.int(90));
  };
  for (let round = 0; round < opts.rounds; round++) {
    const jobs: TrieJob[] = [];
    const owners: number[] = [];
    for (let t = 0; t < models.length; t++) {
      if (r.int(4) === 0) continue;
      const model = models[t] as Map<string, Uint8Array>;
      const existing = [...model.keys()];
      const updates: TrieUpdate[] = [];
      if (round % 7 === 6 && r.int(2) === 0) {
        // Delete everything (down to the empty root), sometimes with a re-insert in the same batch.
        for (const k of existing) updates.push([Buffer.from(k, 'hex'), null]);
        if (r.int(2) === 0) updates.push([randomKey(), r.bytes(1 + r.int(40))]);
      } else {
        const n = r.int(3) === 0 ? r.int(3) : 1 + r.int(80);
        for (let i = 0; i < n; i++) {
          const old = existing.length > 0 && r.int(2) === 0 ? existing[r.int(existing.length)] : undefined;
          const key = old !== undefined ? Uint8Array.from(Buffer.from(old, 'hex')) : randomKey();
          // Overwrites with the same value too (no-ops), and duplicate keys in one batch.
          const value = old !== undefined && r.int(5) === 0 ? (model.get(old) as Uint8Array) : randomValue();
          updates.push([key, value]);
          if (r.int(10) === 0) updates.push([key, randomValue()]);
        }
      }
      jobs.push({ root: roots[t] as Uint8Array, updates });
      owners.push(t);
    }
    const result = both(trie, jobs);
    store.putAll(result.newNodes);
    owners.forEach((t, j) => {
      const model = models[t] as Map<string, Uint8Array>;
      for (const [k, v] of (jobs[j] as TrieJob).updates) {
        if (v === null || v.length === 0) model.delete(hex(k));
        else model.set(hex(k), v);
      }
      roots[t] = result.roots[j] as Uint8Array;
      const entries: TrieEntry[] = [...model].map(([k, v]) => [Uint8Array.from(Buffer.from(k, 'hex')), v]);
      expect(hex(roots[t] as Uint8Array)).toBe(hex(trieRoot(entries)));
    });
  }
}

describe.skipIf(!hasNativeTrieUpdate && !nativeRequired)('native MerkleTrie update', () => {
  it('matches the JS path on random batches over 32-byte keys with long shared prefixes', () => {
    for (let seed = 1; seed <= 4; seed++) {
      randomRun(seed, { tries: 6, rounds: 30, keyLen: () => 32, prefix: rng(seed + 100).bytes(31) });
    }
  });

  it('matches the JS path on short keys of mixed lengths (branch values, embedded nodes)', () => {
    for (let seed = 11; seed <= 14; seed++) {
      const r = rng(seed * 7);
      randomRun(seed, { tries: 4, rounds: 30, keyLen: () => 1 + r.int(4), prefix: Uint8Array.of(0x12, 0x34, 0x56) });
    }
  });

  it('matches the JS path on a larger trie with a few thousand updates', () => {
    const r = rng(77);
    const store = new MemoryNodeStore();
    const trie = new MerkleTrie(store);
    const keys = Array.from({ length: 5000 }, () => r.bytes(32));
    const first = both(trie, [{ root: EMPTY_TRIE_ROOT, updates: keys.map((k): TrieUpdate => [k, r.bytes(70)]) }]);
    store.putAll(first.newNodes);
    const updates: TrieUpdate[] = [];
    for (let i = 0; i < 2000; i++) {
      const k = r.int(3) === 0 ? r.bytes(32) : (keys[r.int(keys.length)] as Uint8Array);
      updates.push([k, r.int(3) === 0 ? null : r.bytes(1 + r.int(100))]);
    }
    both(trie, [{ root: first.roots[0] as Uint8Array, updates }]);
  });

  it('matches the JS path with keys back to back in one buffer (passed in place), also across jobs', () => {
    const r = rng(55);
    const store = new MemoryNodeStore();
    const trie = new MerkleTrie(store);
    // 32-byte keys as views of one buffer, as a batch of hashes gives them; some repeated and some deleted.
    const packed = r.bytes(32 * 3000);
    const key = (i: number): Uint8Array => packed.subarray(32 * i, 32 * i + 32);
    const updates = Array.from({ length: 3000 }, (_, i): TrieUpdate => [key(i), r.bytes(1 + r.int(80))]);
    const first = both(trie, [
      { root: EMPTY_TRIE_ROOT, updates: updates.slice(0, 2000) },
      { root: EMPTY_TRIE_ROOT, updates: updates.slice(2000) },
    ]);
    store.putAll(first.newNodes);
    // On an existing trie: the same keys again (contiguous), half of them deleted.
    const again = updates.slice(0, 2000).map(([k], i): TrieUpdate => [k, i % 2 === 0 ? null : r.bytes(10)]);
    both(trie, [{ root: first.roots[0] as Uint8Array, updates: again }]);
    // A run that breaks after a while (a key from elsewhere), and one key that is not at the run's end.
    const broken = [...again.slice(0, 500), [r.bytes(32), r.bytes(5)] as TrieUpdate, ...again.slice(500, 900)];
    both(trie, [{ root: first.roots[0] as Uint8Array, updates: broken }]);
    const skipping = [again[0] as TrieUpdate, again[2] as TrieUpdate, again[1] as TrieUpdate];
    both(trie, [{ root: first.roots[0] as Uint8Array, updates: skipping }]);
  });

  it('keeps the root, persists nothing, for no-op jobs and an empty job list', () => {
    const store = new MemoryNodeStore();
    const trie = new MerkleTrie(store);
    const r = rng(5);
    const base = both(trie, [{ root: EMPTY_TRIE_ROOT, updates: [[r.bytes(32), r.bytes(40)]] }]);
    store.putAll(base.newNodes);
    const root = base.roots[0] as Uint8Array;
    const res = both(trie, [
      { root, updates: [] },
      { root, updates: [[r.bytes(32), null]] },
      { root: EMPTY_TRIE_ROOT, updates: [[r.bytes(32), null]] },
    ]);
    expect(nodeCount(res.newNodes)).toBe(0);
    expect(res.roots.map(hex)).toEqual([hex(root), hex(root), hex(EMPTY_TRIE_ROOT)]);
    const none = both(trie, []);
    expect(none.roots).toEqual([]);
    expect(show(none)).toMatchObject({ hashes: '', rlps: '', offsets: [0], nodes: [] });
    // A one-entry trie whose root node is under 32 bytes: still hashed and persisted.
    const tiny = both(trie, [{ root: EMPTY_TRIE_ROOT, updates: [[Uint8Array.of(1), Uint8Array.of(2)]] }]);
    expect(nodeCount(tiny.newNodes)).toBe(1);
  });

  it('throws the TernError codes of the JS path for missing and malformed nodes', () => {
    const store = new MemoryNodeStore();
    const trie = new MerkleTrie(store);
    const r = rng(9);
    const keys = Array.from({ length: 50 }, () => r.bytes(32));
    const res = both(trie, [{ root: EMPTY_TRIE_ROOT, updates: keys.map((k): TrieUpdate => [k, r.bytes(40)]) }]);
    const root = res.roots[0] as Uint8Array;
    const job = [{ root, updates: [[keys[0] as Uint8Array, null] as TrieUpdate] }];

    const missing = caught(() => new MerkleTrie(new MemoryNodeStore()).applyUpdatesMany(job));
    expect(missing).toBeInstanceOf(TernError);
    expect((missing as TernError).code).toBe('TRIE_MISSING_NODE');
    expect((missing as TernError).message).toContain(`0x${hex(root)}`);
    const missingJs = caught(() => new MerkleTrie(new MemoryNodeStore()).applyUpdatesManyJs(job));
    expect((missingJs as TernError).message).toBe((missing as TernError).message);

    for (const garbage of [
      [],
      [0xc0],
      [0xc1, 0x80],
      [0xf8],
      [0xff, 1, 2],
      [0x80],
      [0xc2, 0x20, 0x85],
      [0xc2, 0xc0, 0x80],
      [0xc3, 0x80, 0x80, 0x80],
      [0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
      [0xc3, 0x00, 0x81, 0x05],
    ]) {
      const bad = new MemoryNodeStore();
      bad.put(root, Uint8Array.from(garbage));
      const native = caught(() => new MerkleTrie(bad).applyUpdatesMany(job));
      const js = caught(() => new MerkleTrie(bad).applyUpdatesManyJs(job));
      expect(js).toBeInstanceOf(TernError);
      expect(native).toBeInstanceOf(TernError);
      expect(`${garbage}: ${(native as TernError).code}`).toBe(`${garbage}: ${(js as TernError).code}`);
    }
  });

  it('lets an exception from the node store through unchanged', () => {
    const store = new MemoryNodeStore();
    const trie = new MerkleTrie(store);
    const res = both(trie, [{ root: EMPTY_TRIE_ROOT, updates: [[rng(3).bytes(32), rng(4).bytes(40)]] }]);
    const boom = new Error('store closed');
    const failing = new MerkleTrie({
      get: () => {
        throw boom;
      },
    });
    const job = [{ root: res.roots[0] as Uint8Array, updates: [[rng(5).bytes(32), null] as TrieUpdate] }];
    expect(caught(() => failing.applyUpdatesMany(job))).toBe(boom);
  });

  it('returns plain Uint8Arrays, each root in memory of its own (a worker transfers it)', () => {
    const r = rng(21);
    const trie = new MerkleTrie(new MemoryNodeStore());
    const job = {
      root: EMPTY_TRIE_ROOT,
      updates: Array.from({ length: 40 }, (): TrieUpdate => [r.bytes(32), r.bytes(50)]),
    };
    const res = trie.applyUpdatesManyNative([job, job]) as Result;
    const { hashes, rlps } = res.newNodes;
    for (const a of [...res.roots, hashes, rlps]) expect(Object.getPrototypeOf(a)).toBe(Uint8Array.prototype);
    expect(res.roots[0]?.buffer).not.toBe(rlps.buffer);
    expect(res.roots[0]?.buffer).not.toBe(res.roots[1]?.buffer);
    // Transferring a root's buffer leaves the nodes readable.
    structuredClone(res.roots[0], { transfer: [(res.roots[0] as Uint8Array).buffer as ArrayBuffer] });
    const [hash, rlp] = eachNode(res.newNodes).next().value ?? [new Uint8Array(0), new Uint8Array(0)];
    expect(rlp.length).toBeGreaterThan(0);
    expect(hex(keccak256(rlp))).toBe(hex(hash));
  });

  it('hands over the packed nodes by transfer: the same nodes on the other side, the sender detached', () => {
    const r = rng(31);
    const trie = new MerkleTrie(new MemoryNodeStore());
    const job = {
      root: EMPTY_TRIE_ROOT,
      updates: Array.from({ length: 300 }, (): TrieUpdate => [r.bytes(32), r.bytes(60)]),
    };
    for (const res of [trie.applyUpdatesManyNative([job]) as Result, trie.applyUpdatesManyJs([job])]) {
      const before = show(res);
      const buffers = nodeBuffers(res.newNodes);
      expect(new Set(buffers).size).toBe(buffers.length);
      const moved = structuredClone(res.newNodes, { transfer: buffers });
      expect(show({ roots: res.roots, newNodes: moved })).toEqual(before);
      expect(res.newNodes.rlps.length).toBe(0);
    }
  });

  it('leaves keys longer than the native limit to the JS path', () => {
    const trie = new MerkleTrie(new MemoryNodeStore());
    const long = new Uint8Array(NATIVE_TRIE_MAX_KEY + 1).fill(7);
    const job = [{ root: EMPTY_TRIE_ROOT, updates: [[long, Uint8Array.of(1)] as TrieUpdate] }];
    expect(trie.applyUpdatesManyNative(job)).toBeUndefined();
    expect(show(trie.applyUpdatesMany(job))).toEqual(show(trie.applyUpdatesManyJs(job)));
  });
});
