// One suite over both TrieHasher implementations: commitments of random block diffs (new accounts, deletions,
// storage writes and clears) equal StateCommitment's over a plain node store, hashed ahead of the writes (layers),
// with and without prefetching; plus the node cache's bound.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Rng, xorshiftRng } from '../../../../../bench/rng.js';
import { LmdbStore } from '../../../../../src/main/common/db/lmdb.js';
import { writeTrieNode } from '../../../../../src/main/exec/db/state.js';
import { InlineTrieHasher } from '../../../../../src/main/exec/hasher/inline.js';
import type { TrieHasher } from '../../../../../src/main/exec/hasher/interface.js';
import { PooledTrieHasher } from '../../../../../src/main/exec/hasher/pooled.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import {
  type AccountChange,
  StateCommitment,
  type StateDiff,
} from '../../../../../src/main/primitives/trie/commitment.js';
import { MemoryNodeStore } from '../../../../../src/main/primitives/trie/memory.js';
import { NODE_CACHE_ENTRY_OVERHEAD, NodeCache } from '../../../../../src/main/primitives/trie/nodeCache.js';
import { eachNode } from '../../../../../src/main/primitives/trie/packedNodes.js';
import { EMPTY_TRIE_ROOT } from '../../../../../src/main/primitives/trie/root.js';
import { decodeDiff, encodeDiff } from '../../../../../src/main/protocol/hasher/codec.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const EMPTY_CODE = keccak256(new Uint8Array(0));

/** xorshiftRng plus nonzero values of up to 32 bytes. */
function rng(seed: number): Rng & { big(): bigint } {
  const r = xorshiftRng(seed);
  const big = (): bigint =>
    r.next() % 3 === 0 ? BigInt(1 + (r.next() % 0x7f)) : BigInt(`0x${hex(r.bytes(1 + (r.next() % 32)))}`) || 1n;
  return { ...r, big };
}

/** Random diffs over a pool of addresses: new and updated accounts, deletions, slot writes and deletes, clears. */
function randomDiffs(seed: number, blocks: number): StateDiff[] {
  const r = rng(seed);
  const addresses = Array.from({ length: 60 }, () => `0x${hex(r.bytes(20))}`);
  const slots = Array.from({ length: 40 }, () => `0x${hex(r.bytes(32))}`);
  const live = new Set<string>();
  const diffs: StateDiff[] = [];
  for (let b = 0; b < blocks; b++) {
    const accounts = new Map<string, AccountChange | null>();
    const touched = 5 + r.int(25);
    for (let i = 0; i < touched; i++) {
      const address = addresses[r.int(addresses.length)] as string;
      if (live.has(address) && r.int(8) === 0) {
        accounts.set(address, null);
        live.delete(address);
        continue;
      }
      const storage = new Map<string, bigint>();
      const writes = r.int(3) === 0 ? 0 : r.int(12);
      for (let j = 0; j < writes; j++) storage.set(slots[r.int(slots.length)] as string, r.int(4) === 0 ? 0n : r.big());
      const change: AccountChange = {
        nonce: BigInt(r.int(1000)),
        balance: r.big(),
        codeHash: r.int(3) === 0 ? keccak256(r.bytes(10)) : EMPTY_CODE,
        storage,
      };
      if (live.has(address) && r.int(6) === 0) change.storageCleared = true;
      if (!live.has(address)) change.storageCleared = r.int(2) === 0;
      accounts.set(address, change);
      live.add(address);
    }
    diffs.push({ accounts });
  }
  return diffs;
}

/** The expected results: StateCommitment block after block over an in-memory node store. */
function reference(diffs: StateDiff[]): Array<{ root: string; storageRoots: Map<string, string> }> {
  const store = new MemoryNodeStore();
  const commitment = new StateCommitment(store);
  let root = EMPTY_TRIE_ROOT;
  return diffs.map((diff) => {
    const c = commitment.apply(root, diff);
    store.putAll(c.newNodes);
    root = c.root;
    return { root: hex(c.root), storageRoots: new Map([...c.storageRoots].map(([k, v]) => [k, hex(v)])) };
  });
}

const dirs: string[] = [];
function newStore(): LmdbStore {
  const dir = mkdtempSync(join(tmpdir(), 'tern-hasher-'));
  dirs.push(dir);
  return new LmdbStore({ path: dir });
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('hasher codec', () => {
  it('round-trips a diff', () => {
    for (const diff of randomDiffs(7, 5)) {
      const back = decodeDiff(encodeDiff(diff));
      expect([...back.accounts.keys()]).toEqual([...diff.accounts.keys()]);
      for (const [address, change] of diff.accounts) {
        const got = back.accounts.get(address);
        if (change === null) expect(got).toBeNull();
        else {
          expect(got?.nonce).toBe(change.nonce);
          expect(got?.balance).toBe(change.balance);
          expect(hex(got?.codeHash as Uint8Array)).toBe(hex(change.codeHash));
          expect(got?.storageCleared === true).toBe(change.storageCleared === true);
          expect([...(got?.storage ?? [])]).toEqual([...change.storage]);
        }
      }
    }
  });
});

describe('NodeCache', () => {
  it('stays within its byte bound, evicting the least recently used', () => {
    const entry = 100 + NODE_CACHE_ENTRY_OVERHEAD;
    const cache = new NodeCache(10 * entry);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, new Uint8Array(100));
    expect(cache.size).toBe(10);
    cache.get('k0'); // most recent now
    for (let i = 10; i < 25; i++) {
      cache.set(`k${i}`, new Uint8Array(100));
      expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
    }
    expect(cache.size).toBe(10);
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k24')).toBeDefined();
    cache.set('huge', new Uint8Array(20 * entry)); // larger than the cache: not kept
    expect(cache.get('huge')).toBeUndefined();
    expect(new NodeCache(0).bytes).toBe(0);
  });
});

type Make = (store: LmdbStore, opts: { cacheMB: number; prefetch: boolean }) => TrieHasher;
const implementations: Array<[string, Make]> = [
  ['inline', (store, opts) => new InlineTrieHasher(opts, { db: store })],
  ['pooled', (store, opts) => new PooledTrieHasher({ ...opts, path: store.path })],
];

describe.each(implementations)('TrieHasher (%s)', (_name, make) => {
  const diffs = randomDiffs(42, 12);
  const expected = reference(diffs);

  /** Commits every diff, each hashed before the previous block is written (pipelined), and writes in order. */
  async function run(opts: { cacheMB: number; prefetch: boolean }, pipelined: boolean): Promise<void> {
    const store = newStore();
    const hasher = make(store, opts);
    try {
      let root = EMPTY_TRIE_ROOT;
      let unwritten: { layer: number | undefined; nodes: Array<[Uint8Array, Uint8Array]> } | undefined;
      const write = async (w: NonNullable<typeof unwritten>) => {
        const b = store.batch();
        for (const [h, rlp] of w.nodes) writeTrieNode(b, h, rlp);
        await b.commit();
        if (w.layer !== undefined) hasher.release(w.layer);
      };
      for (let i = 0; i < diffs.length; i++) {
        const diff = diffs[i] as StateDiff;
        hasher.prefetch(
          root,
          [...diff.accounts.keys()].map((a) => Uint8Array.from(Buffer.from(a.slice(2), 'hex'))),
        );
        const c = await hasher.commit(root, diff, { keep: pipelined });
        expect(hex(c.root)).toBe(expected[i]?.root);
        expect(new Map([...c.storageRoots].map(([k, v]) => [k, hex(v)]))).toEqual(expected[i]?.storageRoots);
        // The previous block is written only now: this commit read its nodes from the layer.
        if (unwritten !== undefined) await write(unwritten);
        unwritten = { layer: c.layer, nodes: [...eachNode(c.newNodes)].map(([h, rlp]) => [h.slice(), rlp.slice()]) };
        if (!pipelined) {
          await write(unwritten);
          unwritten = undefined;
        }
        root = c.root;
      }
      if (unwritten !== undefined) await write(unwritten);
      if (hasher instanceof PooledTrieHasher) {
        const stats = await hasher.stats();
        expect(stats.layers).toBe(0);
        expect(stats.bytes).toBeLessThanOrEqual(stats.maxBytes);
      } else if (hasher instanceof InlineTrieHasher) {
        expect(hasher.core.layers).toBe(0);
        expect(hasher.core.cache.bytes).toBeLessThanOrEqual(hasher.core.cache.maxBytes);
      }
    } finally {
      await hasher.close();
      await store.close();
    }
  }

  it('gives the reference roots, hashing each block before the previous one is written', async () => {
    await run({ cacheMB: 4, prefetch: true }, true);
  });

  it('gives the same roots without prefetch, without cache, and without pipelining', async () => {
    await run({ cacheMB: 4, prefetch: false }, true);
    await run({ cacheMB: 0, prefetch: true }, true);
    await run({ cacheMB: 0.01, prefetch: true }, false);
  });

  it('prefetch warms the node cache with the accounts’ paths', async () => {
    const store = newStore();
    const hasher = make(store, { cacheMB: 0, prefetch: false });
    const warm = make(store, { cacheMB: 4, prefetch: true });
    try {
      let root = EMPTY_TRIE_ROOT;
      for (const diff of diffs.slice(0, 6)) {
        const c = await hasher.commit(root, diff);
        const b = store.batch();
        for (const [h, rlp] of eachNode(c.newNodes)) writeTrieNode(b, h, rlp);
        await b.commit();
        root = c.root;
      }
      const next = diffs[6] as StateDiff;
      warm.prefetch(
        root,
        [...next.accounts.keys()].map((a) => Uint8Array.from(Buffer.from(a.slice(2), 'hex'))),
      );
      const stats = async () =>
        warm instanceof PooledTrieHasher ? await warm.stats() : (warm as InlineTrieHasher).core.cache.stats;
      // The prefetch alone read the paths from the database into the cache.
      const prefetched = await stats();
      expect(prefetched.size).toBeGreaterThan(0);
      const c = await warm.commit(root, next);
      expect(hex(c.root)).toBe(expected[6]?.root);
      // The commitment then found them cached.
      expect((await stats()).hits).toBeGreaterThan(prefetched.hits);
    } finally {
      await hasher.close();
      await warm.close();
      await store.close();
    }
  });
});
