// StateCommitment over random block diffs, against secure-trie roots recomputed from a plain model of the state.
import { describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../bench/rng.js';
import { TernError } from '../../../../../src/main/common/errors.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import {
  type AccountChange,
  encodeAccount,
  encodeStorageValue,
  StateCommitment,
  type StateDiff,
} from '../../../../../src/main/primitives/trie/commitment.js';
import { MemoryNodeStore } from '../../../../../src/main/primitives/trie/memory.js';
import { nodeCount } from '../../../../../src/main/primitives/trie/packedNodes.js';
import { EMPTY_TRIE_ROOT, secureTrieRoot, type TrieEntry } from '../../../../../src/main/primitives/trie/root.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const EMPTY_CODE = keccak256(new Uint8Array(0));

function rng(seed: number): { int(n: number): number; bytes(n: number): Uint8Array; big(): bigint } {
  const { next, int, bytes } = xorshiftRng(seed);
  return {
    int,
    bytes,
    // Values of every size: 1 byte, 0x80 (RLP boundary), up to 32 bytes.
    big: () => {
      const k = next() % 4;
      if (k === 0) return BigInt(1 + (next() % 0x7f));
      if (k === 1) return 0x80n;
      return BigInt(`0x${hex(bytes(1 + (next() % 32)))}`) || 1n;
    },
  };
}

interface ModelAccount {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storage: Map<string, bigint>;
}

function modelRoot(model: Map<string, ModelAccount>): string {
  const entries: TrieEntry[] = [];
  for (const [address, acct] of model) {
    const slots: TrieEntry[] = [...acct.storage].map(([slot, v]) => [fromHex(slot), encodeStorageValue(v)]);
    entries.push([fromHex(address), encodeAccount(acct.nonce, acct.balance, secureTrieRoot(slots), acct.codeHash)]);
  }
  return hex(secureTrieRoot(entries));
}

const slotHex = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

describe('StateCommitment', () => {
  it('encodes accounts and storage values as the state trie holds them', () => {
    // The empty account: [0x80, 0x80, emptyRoot, keccak('')].
    const rlp = encodeAccount(0n, 0n, EMPTY_TRIE_ROOT, EMPTY_CODE);
    expect(hex(rlp)).toBe(`f8448080a0${hex(EMPTY_TRIE_ROOT)}a0${hex(EMPTY_CODE)}`);
    expect(hex(encodeStorageValue(1n))).toBe('01');
    expect(hex(encodeStorageValue(0x80n))).toBe('8180');
    expect(hex(encodeStorageValue(0x1234n))).toBe('821234');
    expect(hex(encodeStorageValue((1n << 256n) - 1n))).toBe(`a0${'ff'.repeat(32)}`);
    expect(() => encodeStorageValue(1n << 256n)).toThrow(TernError);
  });

  it('matches the hex_encoded_securetrie_test state (accounts with storage roots)', () => {
    // The first case of TrieTests/hex_encoded_securetrie_test.json is a real state: rebuild it from its fields.
    const store = new MemoryNodeStore();
    const c = new StateCommitment(store);
    const accounts = new Map<string, AccountChange | null>([
      [
        '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b',
        { nonce: 1n, balance: 0x05f446a7n, codeHash: EMPTY_CODE, storage: new Map() },
      ],
    ]);
    const result = c.apply(EMPTY_TRIE_ROOT, { accounts });
    const want = secureTrieRoot([
      [
        fromHex('a94f5374fce5edbc8e2a8697c15331677e6ebf0b'),
        fromHex(
          'f848018405f446a7a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
        ),
      ],
    ]);
    expect(hex(result.root)).toBe(hex(want));
  });

  it('random blocks: creations, storage writes and clears, deletions, re-creations', () => {
    const r = rng(2024);
    const store = new MemoryNodeStore();
    const commitment = new StateCommitment(store);
    const model = new Map<string, ModelAccount>();
    const addresses = Array.from({ length: 60 }, () => `0x${hex(r.bytes(20))}`);
    let root: Uint8Array = EMPTY_TRIE_ROOT;
    for (let block = 0; block < 40; block++) {
      const accounts = new Map<string, AccountChange | null>();
      for (let t = 1 + r.int(12); t > 0; t--) {
        const address = addresses[r.int(addresses.length)] as string;
        // One entry per account per block, as the executor's diff has.
        if (accounts.has(address)) continue;
        const old = model.get(address);
        const kind = r.int(10);
        if (kind === 0 && old !== undefined) {
          accounts.set(address, null);
          model.delete(address);
          continue;
        }
        // Re-creation (or a fresh account) starts from empty storage.
        const cleared = old === undefined || kind === 1;
        const next: ModelAccount = {
          nonce: (old?.nonce ?? 0n) + BigInt(r.int(2)),
          balance: r.int(4) === 0 ? 0n : r.big(),
          codeHash: r.int(3) === 0 ? keccak256(r.bytes(8)) : (old?.codeHash ?? EMPTY_CODE),
          storage: cleared ? new Map() : new Map(old.storage),
        };
        const writes = new Map<string, bigint>();
        for (let s = r.int(r.int(4) === 0 ? 40 : 5); s > 0; s--) {
          const slot = slotHex(r.int(64));
          const value = r.int(4) === 0 ? 0n : r.big();
          writes.set(slot, value);
          if (value === 0n) next.storage.delete(slot);
          else next.storage.set(slot, value);
        }
        model.set(address, next);
        accounts.set(address, {
          nonce: next.nonce,
          balance: next.balance,
          codeHash: next.codeHash,
          storage: writes,
          storageCleared: cleared && old !== undefined,
        });
      }
      const diff: StateDiff = { accounts };
      const result = commitment.apply(root, diff);
      store.putAll(result.newNodes);
      root = result.root;
      expect(`block ${block}: ${hex(root)}`).toBe(`block ${block}: ${modelRoot(model)}`);
      for (const [address, storageRoot] of result.storageRoots) {
        const slots = [...(model.get(address)?.storage ?? [])].map(
          ([slot, v]): TrieEntry => [fromHex(slot), encodeStorageValue(v)],
        );
        expect(hex(storageRoot)).toBe(hex(secureTrieRoot(slots)));
      }
    }
  });

  it('deleting every account returns the empty root', () => {
    const store = new MemoryNodeStore();
    const c = new StateCommitment(store);
    const a = '0x00000000000000000000000000000000000000aa';
    const b = '0x00000000000000000000000000000000000000bb';
    const storage = new Map([[slotHex(1), 5n]]);
    const first = c.apply(EMPTY_TRIE_ROOT, {
      accounts: new Map([
        [a, { nonce: 1n, balance: 10n, codeHash: EMPTY_CODE, storage }],
        [b, { nonce: 0n, balance: 1n, codeHash: EMPTY_CODE, storage: new Map() }],
      ]),
    });
    store.putAll(first.newNodes);
    const second = c.apply(first.root, {
      accounts: new Map([
        [a, null],
        [b, null],
      ]),
    });
    expect(hex(second.root)).toBe(hex(EMPTY_TRIE_ROOT));
    expect(nodeCount(second.newNodes)).toBe(0);
  });

  it('rejects malformed addresses and slots', () => {
    const c = new StateCommitment(new MemoryNodeStore());
    const acct = { nonce: 0n, balance: 0n, codeHash: EMPTY_CODE, storage: new Map<string, bigint>() };
    expect(() => c.apply(EMPTY_TRIE_ROOT, { accounts: new Map([['0x1234', acct]]) })).toThrow(/address "0x1234"/);
    const badSlot = { ...acct, storage: new Map([['0x01', 1n]]) };
    expect(() =>
      c.apply(EMPTY_TRIE_ROOT, { accounts: new Map([['0x00000000000000000000000000000000000000aa', badSlot]]) }),
    ).toThrow(/storage slot "0x01"/);
  });
});
