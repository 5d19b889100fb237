// The incremental trie against whole-set roots: random batches of inserts, updates and deletes, each checked
// against trieRoot over the full key set, with the node store holding only what earlier results returned.
import { describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../bench/rng.js';
import { TernError } from '../../../../../src/main/common/errors.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import type { TrieUpdate } from '../../../../../src/main/primitives/trie/interface.js';
import { MemoryNodeStore } from '../../../../../src/main/primitives/trie/memory.js';
import { MerkleTrie } from '../../../../../src/main/primitives/trie/merkleTrie.js';
import { eachNode, nodeCount } from '../../../../../src/main/primitives/trie/packedNodes.js';
import { EMPTY_TRIE_ROOT, type TrieEntry, trieRoot } from '../../../../../src/main/primitives/trie/root.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));

const rng = xorshiftRng;

/** A trie over a memory store plus the plain map it should equal. */
class Harness {
  readonly store = new MemoryNodeStore();
  readonly trie = new MerkleTrie(this.store);
  readonly model = new Map<string, Uint8Array>();
  root: Uint8Array = EMPTY_TRIE_ROOT;

  apply(updates: TrieUpdate[]): { newNodes: number } {
    const result = this.trie.applyUpdates(this.root, updates);
    for (const [hash, rlp] of eachNode(result.newNodes)) expect(hex(hash)).toBe(hex(keccak256(rlp)));
    this.store.putAll(result.newNodes);
    this.root = result.root;
    for (const [k, v] of updates) {
      if (v === null || v.length === 0) this.model.delete(hex(k));
      else this.model.set(hex(k), v);
    }
    return { newNodes: nodeCount(result.newNodes) };
  }

  expected(): string {
    const entries: TrieEntry[] = [...this.model].map(([k, v]) => [fromHex(k), v]);
    return hex(trieRoot(entries));
  }

  check(label: string): void {
    expect(`${label}: ${hex(this.root)}`).toBe(`${label}: ${this.expected()}`);
  }
}

describe('MerkleTrie.applyUpdates', () => {
  it('builds the fixture tries one update at a time and all at once', () => {
    const entries: [string, string | null][] = [
      ['do', 'verb'],
      ['ether', 'wookiedoo'],
      ['horse', 'stallion'],
      ['shaman', 'horse'],
      ['doge', 'coin'],
      ['ether', null],
      ['dog', 'puppy'],
      ['shaman', null],
    ];
    const want = '5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84';
    const one = new Harness();
    for (const [k, v] of entries) {
      one.apply([[utf8(k), v === null ? null : utf8(v)]]);
      one.check(k);
    }
    expect(hex(one.root)).toBe(want);
    const all = new Harness();
    all.apply(entries.map(([k, v]) => [utf8(k), v === null ? null : utf8(v)]));
    expect(hex(all.root)).toBe(want);
  });

  it('random batches over 32-byte keys match trieRoot after every batch', () => {
    const r = rng(1234);
    const h = new Harness();
    const live: Uint8Array[] = [];
    for (let batch = 0; batch < 60; batch++) {
      const updates: TrieUpdate[] = [];
      const n = 1 + r.int(batch < 10 ? 200 : 40);
      for (let i = 0; i < n; i++) {
        const op = r.int(10);
        if (op < 5 || live.length === 0) {
          const key = r.bytes(32);
          live.push(key);
          updates.push([key, r.bytes(1 + r.int(90))]);
        } else if (op < 7) {
          updates.push([live[r.int(live.length)] as Uint8Array, r.bytes(1 + r.int(90))]);
        } else if (op < 9) {
          updates.push([live[r.int(live.length)] as Uint8Array, null]);
        } else {
          updates.push([r.bytes(32), null]);
        }
      }
      h.apply(updates);
      h.check(`batch ${batch}`);
    }
    expect(h.model.size).toBeGreaterThan(100);
  });

  it('random batches over short nested keys (branch values, embedded nodes) match trieRoot', () => {
    const r = rng(77);
    const h = new Harness();
    for (let batch = 0; batch < 200; batch++) {
      const updates: TrieUpdate[] = [];
      const n = 1 + r.int(6);
      for (let i = 0; i < n; i++) {
        // Keys of 0..3 bytes from {00, 01, 10, 11}: many keys are prefixes of others; tiny values embed nodes.
        const key = r.bytes(r.int(4)).map((b) => b & 0x11);
        const value = r.int(3) === 0 ? null : r.bytes(1 + r.int(r.int(2) === 0 ? 3 : 40));
        updates.push([key, value]);
      }
      h.apply(updates);
      h.check(`batch ${batch}`);
    }
  });

  it('deletes collapse branches and extensions down to the empty trie', () => {
    const r = rng(5);
    const h = new Harness();
    const keys = Array.from({ length: 300 }, () => r.bytes(32));
    // Shared prefixes force extensions: half the keys start with the same 3 bytes.
    for (let i = 0; i < 150; i++) (keys[i] as Uint8Array).set([0xab, 0xcd, 0xef]);
    h.apply(keys.map((k) => [k, r.bytes(40)]));
    h.check('full');
    for (let i = 0; i < keys.length; i++) {
      h.apply([[keys[i] as Uint8Array, null]]);
      if (i % 7 === 0 || i > 280) h.check(`after deleting ${i + 1}`);
    }
    expect(hex(h.root)).toBe(hex(EMPTY_TRIE_ROOT));
  });

  it('collapses a branch into an extension below it, and a leaf into a branch value', () => {
    const h = new Harness();
    // a1, a2 share the extension "a" + branch; deleting b leaves root branch with one child → merged extension.
    h.apply([
      [utf8('a1'), utf8('x'.repeat(40))],
      [utf8('a2'), utf8('y'.repeat(40))],
      [utf8('b'), utf8('z'.repeat(40))],
      [utf8('ab'), utf8('w')],
    ]);
    h.check('built');
    h.apply([[utf8('b'), null]]);
    h.check('deleted b');
    h.apply([[utf8('a'), utf8('branch value')]]);
    h.check('set branch value');
    h.apply([
      [utf8('a1'), null],
      [utf8('a2'), null],
    ]);
    h.check('only a, ab left');
    h.apply([[utf8('ab'), null]]);
    h.check('only a left');
  });

  it('no-op updates keep the root and persist nothing', () => {
    const h = new Harness();
    const a = new Uint8Array(32).fill(1);
    const b = new Uint8Array(32).fill(2);
    h.apply([
      [a, utf8('one')],
      [b, utf8('two')],
    ]);
    const before = hex(h.root);
    // Root is extension [0] → branch: delete a key under the branch, and one that leaves the extension's path.
    expect(h.apply([[new Uint8Array(32).fill(3), null]]).newNodes).toBe(0);
    expect(h.apply([[new Uint8Array(32).fill(0x11), null]]).newNodes).toBe(0);
    expect(h.apply([[a, utf8('one')]]).newNodes).toBe(0);
    expect(h.apply([]).newNodes).toBe(0);
    expect(hex(h.root)).toBe(before);
  });

  it('later updates of a key in one batch win; empty values delete', () => {
    const h = new Harness();
    const k = utf8('key');
    h.apply([
      [k, utf8('1')],
      [utf8('other'), utf8('o')],
      [k, null],
      [k, utf8('3')],
      [utf8('other'), new Uint8Array(0)],
    ]);
    expect(hex(h.root)).toBe(hex(trieRoot([[k, utf8('3')]])));
  });

  it('persists the root node even when it is shorter than 32 bytes', () => {
    const h = new Harness();
    h.apply([[Uint8Array.of(1), Uint8Array.of(2)]]);
    expect(h.store.get(h.root)).toBeDefined();
    expect(h.trie.get(h.root, Uint8Array.of(1))).toEqual(Uint8Array.of(2));
  });

  it('reads values and iterates entries in key order from the store alone', () => {
    const r = rng(9);
    const h = new Harness();
    const updates: TrieUpdate[] = Array.from({ length: 500 }, () => [r.bytes(1 + r.int(5)), r.bytes(1 + r.int(50))]);
    h.apply(updates);
    const fresh = new MerkleTrie(h.store);
    const got = [...fresh.entries(h.root)].map(([k, v]) => `${hex(k)}=${hex(v)}`);
    const want = [...h.model].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${hex(v)}`);
    expect(got).toEqual(want);
    for (const [k, v] of h.model) expect(hex(fresh.get(h.root, fromHex(k)) ?? new Uint8Array())).toBe(hex(v));
    expect(fresh.get(h.root, r.bytes(7))).toBeUndefined();
    expect([...fresh.entries(EMPTY_TRIE_ROOT)]).toEqual([]);
  });

  it('names the hash of a node missing from the store', () => {
    const h = new Harness();
    const keys = Array.from({ length: 50 }, (_, i) => keccak256(Uint8Array.of(i)));
    h.apply(keys.map((k) => [k, utf8('v'.repeat(40))]));
    // Drop the root node: any update must fail naming it.
    const empty = new MemoryNodeStore();
    const trie = new MerkleTrie(empty);
    let caught: unknown;
    try {
      trie.applyUpdates(h.root, [[keys[0] as Uint8Array, null]]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TernError);
    expect((caught as TernError).code).toBe('TRIE_MISSING_NODE');
    expect((caught as TernError).message).toContain(`0x${hex(h.root)}`);
  });

  it('applyUpdatesMany hashes several tries together with the same roots as one by one', () => {
    const r = rng(31);
    const store = new MemoryNodeStore();
    const trie = new MerkleTrie(store);
    const jobs = Array.from({ length: 20 }, (_, i) => ({
      root: EMPTY_TRIE_ROOT,
      updates: Array.from({ length: 1 + i * 3 }, (): TrieUpdate => [r.bytes(32), r.bytes(1 + r.int(40))]),
    }));
    const many = trie.applyUpdatesMany(jobs);
    jobs.forEach((job, i) => {
      expect(hex(many.roots[i] as Uint8Array)).toBe(hex(trieRoot(job.updates as TrieEntry[])));
    });
    store.putAll(many.newNodes);
    for (const [i, root] of many.roots.entries()) {
      expect([...trie.entries(root)].length).toBe((jobs[i] as { updates: unknown[] }).updates.length);
    }
  });
});
