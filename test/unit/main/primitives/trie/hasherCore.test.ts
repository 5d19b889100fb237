// HasherCore.warm: accounts read ahead of a commit give exactly the commitment of a cold read (root and new nodes),
// spare the commit their trie walks, belong to one state root only, and a read that fails leaves the account to the
// commit, which reports what is missing.
import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import type { AccountChange, StateDiff } from '../../../../../src/main/primitives/trie/commitment.js';
import { HasherCore } from '../../../../../src/main/primitives/trie/hasherCore.js';
import type { NodeReader } from '../../../../../src/main/primitives/trie/interface.js';
import { MemoryNodeStore } from '../../../../../src/main/primitives/trie/memory.js';
import { eachNode } from '../../../../../src/main/primitives/trie/packedNodes.js';
import { EMPTY_TRIE_ROOT } from '../../../../../src/main/primitives/trie/root.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const EMPTY_CODE = keccak256(new Uint8Array(0));
const address = (i: number): Uint8Array => Uint8Array.from(Buffer.from(i.toString(16).padStart(40, '0'), 'hex'));
const key = (i: number): string => `0x${hex(address(i))}`;
const slot = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

function account(nonce: number, slots: Array<[number, bigint]>): AccountChange {
  return {
    nonce: BigInt(nonce),
    balance: 1000n + BigInt(nonce),
    codeHash: EMPTY_CODE,
    storage: new Map(slots.map(([s, v]) => [slot(s), v])),
  };
}

/** A reader that counts what it is asked for. */
function counting(store: NodeReader): NodeReader & { reads: number } {
  const r = {
    reads: 0,
    get(hash: Uint8Array) {
      r.reads++;
      return store.get(hash);
    },
  };
  return r;
}

/** 60 accounts with storage, written to `store`; returns the state root. */
function genesis(store: MemoryNodeStore): Uint8Array {
  const accounts = new Map<string, AccountChange | null>();
  for (let i = 1; i <= 60; i++)
    accounts.set(
      key(i),
      account(i, [
        [i, BigInt(i)],
        [i + 1000, 7n],
      ]),
    );
  const result = new HasherCore(0).commit(store, EMPTY_TRIE_ROOT, { accounts });
  store.putAll(result.newNodes);
  return result.root;
}

/** The block: storage and balances of 40 existing accounts change, two new accounts, one deleted. */
function block(): StateDiff {
  const accounts = new Map<string, AccountChange | null>();
  for (let i = 1; i <= 40; i++)
    accounts.set(
      key(i),
      account(i + 1, [
        [i, BigInt(i) * 3n],
        [i + 2000, 9n],
      ]),
    );
  accounts.set(key(500), account(0, [[1, 1n]]));
  accounts.set(key(501), account(0, []));
  accounts.set(key(60), null);
  return { accounts };
}

const nodesOf = (r: { newNodes: Parameters<typeof eachNode>[0] }) =>
  [...eachNode(r.newNodes)].map(([h]) => hex(h)).sort();

describe('HasherCore.warm', () => {
  it('gives the cold commitment exactly, and the commit reads fewer nodes', () => {
    const store = new MemoryNodeStore();
    const root = genesis(store);
    const diff = block();
    const coldReader = counting(store);
    const cold = new HasherCore(0).commit(coldReader, root, diff);

    const core = new HasherCore(0);
    const all = [...diff.accounts.keys()].map((a) => Uint8Array.from(Buffer.from(a.slice(2), 'hex')));
    expect(core.warm(store, root, all)).toBe(all.length);
    expect(core.warm(store, root, all)).toBe(0); // each account read once per root
    const warmReader = counting(store);
    const warm = core.commit(warmReader, root, diff);
    expect(hex(warm.root)).toBe(hex(cold.root));
    expect(nodesOf(warm)).toEqual(nodesOf(cold));
    expect([...warm.storageRoots].map(([a, r]) => [a, hex(r)])).toEqual(
      [...cold.storageRoots].map(([a, r]) => [a, hex(r)]),
    );
    // The storage-root walks of the 43 accounts are gone from the commit: far fewer reads.
    expect(warmReader.reads).toBeLessThan(coldReader.reads - 43);
  });

  it('uses what it read only for the commit on that root', () => {
    const store = new MemoryNodeStore();
    const root = genesis(store);
    const core = new HasherCore(0);
    // Read ahead on the empty root: every account is absent there.
    core.warm(store, EMPTY_TRIE_ROOT, [address(1), address(2)]);
    const diff = block();
    const expected = new HasherCore(0).commit(store, root, diff);
    expect(hex(core.commit(store, root, diff).root)).toBe(hex(expected.root));
    // And taken once: a second commit on the root reads the trie again.
    core.warm(store, root, [address(1)]);
    core.commit(store, root, diff);
    const again = counting(store);
    core.commit(again, root, diff);
    expect(hex(core.commit(store, root, diff).root)).toBe(hex(expected.root));
    expect(again.reads).toBeGreaterThan(0);
  });

  it('leaves an account it cannot read to the commit, which names the missing node', () => {
    const store = new MemoryNodeStore();
    const root = genesis(store);
    const core = new HasherCore(0);
    const missing = new Uint8Array(32).fill(0xab);
    expect(core.warm(store, missing, [address(1)])).toBe(0);
    let err: unknown;
    try {
      core.commit(store, missing, block());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TernError);
    expect((err as TernError).code).toBe('TRIE_MISSING_NODE');
    expect(hex(core.commit(store, root, block()).root)).toBe(hex(new HasherCore(0).commit(store, root, block()).root));
  });
});

describe('HasherCore.prefetch', () => {
  it('remembers the accounts it walks for the commit on that root, as warm does', () => {
    const store = new MemoryNodeStore();
    const root = genesis(store);
    const diff = block();
    const coldReader = counting(store);
    const cold = new HasherCore(0).commit(coldReader, root, diff);
    const core = new HasherCore(0);
    const all = [...diff.accounts.keys()].map((a) => Uint8Array.from(Buffer.from(a.slice(2), 'hex')));
    expect(core.prefetch(store, root, all)).toBe(all.length);
    const reader = counting(store);
    const result = core.commit(reader, root, diff);
    expect(hex(result.root)).toBe(hex(cold.root));
    expect(nodesOf(result)).toEqual(nodesOf(cold));
    expect(reader.reads).toBeLessThan(coldReader.reads - 43);
  });
});
