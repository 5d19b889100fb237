import { Account, Address, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { FlatState } from '../../../../../src/main/exec/state/flatState.js';
import type { AccountRecord, StateReader } from '../../../../../src/main/exec/state/interface.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { bigintToMinimalBytes, fromHex, toHexKey } from '../../../../../src/main/primitives/bytes.js';

const addr = (n: number) => new Address(Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n : 0)));
const slot = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0));
const slotKey = (n: number) => toHexKey(slot(n));
const A = addr(1);
const B = addr(2);
const C = addr(3);
const CODE = Uint8Array.of(0x60, 0x00, 0x60, 0x00, 0xf3);
const NONEMPTY_ROOT = keccak256(Uint8Array.of(1));

/** A reader over a fixed map, counting reads. */
class Reader implements StateReader {
  reads = 0;
  constructor(
    private readonly accounts: Map<string, AccountRecord & { storage?: Map<string, bigint> }>,
    private readonly codes = new Map<string, Uint8Array>(),
  ) {}
  getAccount(a: Uint8Array) {
    this.reads++;
    return this.accounts.get(toHexKey(a));
  }
  getStorage(a: Uint8Array, s: Uint8Array) {
    this.reads++;
    return this.accounts.get(toHexKey(a))?.storage?.get(toHexKey(s)) ?? 0n;
  }
  getCode(h: Uint8Array) {
    const c = this.codes.get(toHexKey(h));
    if (c === undefined) throw new Error('no code');
    return c;
  }
}

function fixture(): { reader: Reader; state: FlatState } {
  const reader = new Reader(
    new Map([
      // A: an EOA with balance.
      [A.toString(), { nonce: 1n, balance: 100n, codeHash: KECCAK256_NULL }],
      // B: a contract with code and two slots.
      [
        B.toString(),
        {
          nonce: 1n,
          balance: 0n,
          codeHash: keccak256(CODE),
          storageRoot: NONEMPTY_ROOT,
          storage: new Map([
            [slotKey(1), 11n],
            [slotKey(2), 22n],
          ]),
        },
      ],
    ]),
    new Map([[toHexKey(keccak256(CODE)), CODE]]),
  );
  return { reader, state: new FlatState(reader) };
}

const val = async (s: FlatState, a: Address, n: number) => s.getStorageValue(a.bytes, slot(n));

describe('FlatState reads', () => {
  it('reads accounts, code and storage through to the reader once', async () => {
    const { reader, state } = fixture();
    const b = await state.getAccount(B);
    expect(b?.nonce).toBe(1n);
    expect(b?.storageRoot).toEqual(NONEMPTY_ROOT);
    expect(await state.getCode(B)).toEqual(CODE);
    expect(await state.getCodeSize(B)).toBe(CODE.length);
    expect(await state.getStorage(B, slot(1))).toEqual(Uint8Array.of(11));
    expect(await state.getStorage(B, slot(9))).toEqual(new Uint8Array(0));
    const reads = reader.reads;
    await state.getAccount(B);
    await state.getStorage(B, slot(1));
    expect(reader.reads).toBe(reads);
  });

  it('reports a missing account as undefined, empty code and zero storage without asking for storage', async () => {
    const { reader, state } = fixture();
    expect(await state.getAccount(C)).toBeUndefined();
    expect(await state.getCode(C)).toEqual(new Uint8Array(0));
    const before = reader.reads;
    expect(await val(state, C, 1)).toBe(0n);
    expect(reader.reads).toBe(before);
    expect(state.isEmpty(C)).toBe(true);
    expect(state.exists(C)).toBe(false);
  });

  it('keeps its own copy of an address given as a Buffer view (storage reads later ask for the same account)', () => {
    const { state } = fixture();
    // The caller's bytes: a Buffer view into a larger buffer that it reuses afterwards (Buffer#slice would alias it).
    const backing = Buffer.alloc(64);
    const view = backing.subarray(10, 30);
    view.set(B.bytes);
    expect(state.getNonce(new Address(view))).toBe(1n);
    backing.fill(0xff);
    expect(state.getStorageValue(B.bytes, slot(2))).toBe(22n);
  });

  it('has no trie', async () => {
    const { state } = fixture();
    await expect(state.getStateRoot()).rejects.toThrow(/no trie/);
  });
});

describe('FlatState journal', () => {
  it('reverts account and storage changes to the checkpoint', async () => {
    const { state } = fixture();
    await state.checkpoint();
    state.addBalance(A, 5n);
    state.setNonce(A, 7n);
    await state.putStorage(B, slot(1), Uint8Array.of(99));
    await state.putStorage(B, slot(3), Uint8Array.of(33));
    await state.putAccount(C, new Account(0n, 1n));
    expect(state.getBalance(A)).toBe(105n);
    expect(await val(state, B, 1)).toBe(99n);
    await state.revert();
    expect(state.getBalance(A)).toBe(100n);
    expect(state.getNonce(A)).toBe(1n);
    expect(await val(state, B, 1)).toBe(11n);
    expect(await val(state, B, 3)).toBe(0n);
    expect(await state.getAccount(C)).toBeUndefined();
  });

  it('nests: an inner revert keeps the outer changes, an outer revert undoes committed inner ones', async () => {
    const { state } = fixture();
    await state.checkpoint(); // outer
    state.addBalance(A, 1n);
    await state.checkpoint(); // inner 1
    state.addBalance(A, 10n);
    await state.putStorage(B, slot(2), Uint8Array.of(1));
    await state.revert(); // inner 1 reverted
    expect(state.getBalance(A)).toBe(101n);
    expect(await val(state, B, 2)).toBe(22n);
    await state.checkpoint(); // inner 2
    state.addBalance(A, 100n);
    await state.putStorage(B, slot(2), Uint8Array.of(2));
    await state.commit(); // inner 2 committed into outer
    expect(state.getBalance(A)).toBe(201n);
    expect(state.checkpointDepth).toBe(1);
    await state.revert(); // outer
    expect(state.getBalance(A)).toBe(100n);
    expect(await val(state, B, 2)).toBe(22n);
    expect(state.checkpointDepth).toBe(0);
  });

  it('undoes a deletion: account, code and storage come back', async () => {
    const { state } = fixture();
    await state.checkpoint();
    await state.deleteAccount(B);
    expect(await state.getAccount(B)).toBeUndefined();
    expect(await val(state, B, 1)).toBe(0n);
    await state.revert();
    expect((await state.getAccount(B))?.nonce).toBe(1n);
    expect(await state.getCode(B)).toEqual(CODE);
    expect(await val(state, B, 1)).toBe(11n);
  });

  it('undoes code changes', async () => {
    const { state } = fixture();
    await state.checkpoint();
    await state.putCode(A, Uint8Array.of(0x00));
    expect(await state.getCode(A)).toEqual(Uint8Array.of(0x00));
    await state.revert();
    expect(await state.getCode(A)).toEqual(new Uint8Array(0));
    expect(state.getCodeHash(A)).toEqual(KECCAK256_NULL);
  });

  it('refuses an unbalanced commit or revert', () => {
    const { state } = fixture();
    expect(() => state.commitSync()).toThrow(/without a checkpoint/);
    expect(() => state.revertSync()).toThrow(/without a checkpoint/);
  });
});

describe('FlatState original storage (EIP-2200)', () => {
  it('is the value at the start of the transaction until finishTransaction', async () => {
    const { state } = fixture();
    await state.putStorage(B, slot(1), Uint8Array.of(50));
    await state.putStorage(B, slot(1), Uint8Array.of(60));
    expect(await state.originalStorageCache.get(B, slot(1))).toEqual(Uint8Array.of(11));
    // Never written in this transaction: the current value.
    expect(await state.originalStorageCache.get(B, slot(2))).toEqual(Uint8Array.of(22));
    state.originalStorageCache.clear();
    expect(await state.originalStorageCache.get(B, slot(1))).toEqual(Uint8Array.of(60));
  });

  it('survives a revert of the writes and a wipe of the storage in the same transaction', async () => {
    const { state } = fixture();
    await state.checkpoint();
    await state.putStorage(B, slot(1), Uint8Array.of(50));
    await state.revert();
    expect(await state.originalStorageCache.get(B, slot(1))).toEqual(Uint8Array.of(11));
    await state.clearStorage(B);
    expect(await val(state, B, 2)).toBe(0n);
    expect(await state.originalStorageCache.get(B, slot(2))).toEqual(Uint8Array.of(22));
    await state.putStorage(B, slot(2), Uint8Array.of(1));
    expect(await state.originalStorageCache.get(B, slot(2))).toEqual(Uint8Array.of(22));
    state.finishTransaction();
    expect(await state.originalStorageCache.get(B, slot(2))).toEqual(Uint8Array.of(1));
  });
});

describe('FlatState diff', () => {
  it('lists changed accounts with their written slots, deletions as null, new code', async () => {
    const { state } = fixture();
    state.addBalance(A, 1n);
    await state.putStorage(B, slot(1), bigintToMinimalBytes(0n));
    await state.putStorage(B, slot(5), bigintToMinimalBytes(0x1234n));
    await state.getStorage(B, slot(2)); // a read is not a change
    await state.putAccount(C, new Account(1n, 0n));
    await state.putCode(C, CODE);
    const diff = state.diff();
    expect([...diff.accounts.keys()].sort()).toEqual([A.toString(), B.toString(), C.toString()]);
    const b = diff.accounts.get(B.toString());
    expect(b?.storage).toEqual(
      new Map([
        [slotKey(1), 0n],
        [slotKey(5), 0x1234n],
      ]),
    );
    expect(b?.storageCleared).toBe(false);
    expect(diff.accounts.get(A.toString())).toEqual({
      nonce: 1n,
      balance: 101n,
      codeHash: KECCAK256_NULL,
      storage: new Map(),
      storageCleared: false,
    });
    expect(diff.accounts.get(C.toString())?.codeHash).toEqual(keccak256(CODE));
    expect(diff.codes).toEqual(new Map([[toHexKey(keccak256(CODE)), CODE]]));
    // Unchanged state leaves no trace.
    expect(state.diff().accounts.size).toBe(3);
  });

  it('maps a deleted account to null and leaves out one that never existed', async () => {
    const { state } = fixture();
    await state.deleteAccount(A);
    await state.putAccount(C, new Account(0n, 5n));
    await state.deleteAccount(C);
    const diff = state.diff();
    expect(diff.accounts.get(A.toString())).toBeNull();
    expect(diff.accounts.has(C.toString())).toBe(false);
  });

  it('marks storageCleared when an account is removed and re-created, listing only the new slots', async () => {
    const { state } = fixture();
    await state.deleteAccount(B);
    await state.putAccount(B, new Account(1n, 0n));
    await state.putStorage(B, slot(7), Uint8Array.of(7));
    expect(await val(state, B, 1)).toBe(0n);
    const b = state.diff().accounts.get(B.toString());
    expect(b?.storageCleared).toBe(true);
    expect(b?.storage).toEqual(new Map([[slotKey(7), 7n]]));
    // The EVM sees empty storage (no EIP-7610 collision).
    expect((await state.getAccount(B))?.storageRoot).toEqual(KECCAK256_RLP);
  });

  it('leaves at most the committed value of a reverted write', async () => {
    const { state } = fixture();
    await state.checkpoint();
    await state.putStorage(B, slot(2), Uint8Array.of(1));
    await state.revert();
    expect(state.diff().accounts.get(B.toString())?.storage.get(slotKey(2)) ?? 22n).toBe(22n);
    expect(await val(state, B, 2)).toBe(22n);
  });

  it('starts empty after flush and keeps the values', async () => {
    const { state } = fixture();
    await state.deleteAccount(B);
    await state.putAccount(B, new Account(1n, 0n));
    await state.putStorage(B, slot(7), Uint8Array.of(7));
    state.flush();
    expect(state.diff().accounts.size).toBe(0);
    expect(await val(state, B, 7)).toBe(7n);
    expect(await val(state, B, 1)).toBe(0n);
    await state.putStorage(B, slot(8), Uint8Array.of(8));
    const b = state.diff().accounts.get(B.toString());
    expect(b?.storageCleared).toBe(false);
    expect(b?.storage).toEqual(new Map([[slotKey(8), 8n]]));
  });

  it('refuses to flush with a checkpoint open', async () => {
    const { state } = fixture();
    await state.checkpoint();
    expect(() => state.flush()).toThrow(/checkpoint open/);
  });
});

describe('FlatState across blocks (advance/rebase)', () => {
  it('keeps the block as a warm cache, takes the new storage roots, and reads only through a named reader', async () => {
    const { reader, state } = fixture();
    await state.putStorage(B, slot(1), Uint8Array.of(5));
    await state.modifyAccountFields(A, { balance: 90n });
    // C is created with storage; the commitment reports its new (nonempty) root.
    await state.putAccount(C, new Account(1n, 0n));
    await state.putStorage(C, slot(3), Uint8Array.of(3));
    expect(state.advance(new Map([[C.toString(), NONEMPTY_ROOT]]))).toBe(true);
    expect(state.diff().accounts.size).toBe(0);
    // Until rebase() names the post-block reader, an uncached read throws.
    expect(() => state.getStorageValue(B.bytes, slot(2))).toThrow(/rebase/);
    state.rebase(reader);
    const reads = reader.reads;
    expect(await val(state, B, 1)).toBe(5n);
    expect(state.getBalance(A)).toBe(90n);
    expect(await val(state, C, 3)).toBe(3n);
    expect((await state.getAccount(C))?.storageRoot).toEqual(NONEMPTY_ROOT);
    expect(reader.reads).toBe(reads);
    // Slots the block did not read come from the new reader.
    expect(await val(state, B, 2)).toBe(22n);
    await state.checkpoint();
    expect(() => state.rebase(reader)).toThrow(/uncommitted/);
  });

  it('advances with storage roots still being hashed: emptiness known at once, waits only when it cannot tell', async () => {
    const { reader, state } = fixture();
    const D = addr(4);
    await state.modifyAccountFields(A, { balance: 90n }); // storage untouched: root unchanged (empty)
    await state.putStorage(B, slot(1), new Uint8Array(0)); // B zeroes both its slots: empty, but only the
    await state.putStorage(B, slot(2), new Uint8Array(0)); // commitment can tell (the overlay lacks the whole storage)
    await state.putAccount(C, new Account(1n, 0n)); // created with a nonzero slot: nonempty
    await state.putStorage(C, slot(3), Uint8Array.of(3));
    await state.putAccount(D, new Account(1n, 0n)); // created, its one slot written zero: empty
    await state.putStorage(D, slot(4), new Uint8Array(0));
    let land: (roots: Map<string, Uint8Array>) => void = () => {};
    const roots = new Promise<Map<string, Uint8Array>>((resolve) => {
      land = resolve;
    });
    expect(state.advance(roots)).toBe(true);
    state.rebase(reader);
    const rootOf = async (a: Address) => (await state.getAccount(a))?.storageRoot;
    expect(await rootOf(A)).toEqual(KECCAK256_RLP);
    expect(await rootOf(C)).not.toEqual(KECCAK256_RLP);
    expect(await rootOf(D)).toEqual(KECCAK256_RLP);
    let answered = false;
    const b = rootOf(B).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    land(
      new Map([
        [B.toString(), KECCAK256_RLP],
        [C.toString(), NONEMPTY_ROOT],
        [D.toString(), KECCAK256_RLP],
      ]),
    );
    expect(await b).toEqual(KECCAK256_RLP);
    // Once the roots land they are the commitment's.
    expect(await rootOf(C)).toEqual(NONEMPTY_ROOT);
    // A later block that leaves C's storage alone keeps C's root.
    await state.modifyAccountFields(C, { balance: 1n });
    expect(state.advance(new Promise(() => {}))).toBe(true);
    state.rebase(reader);
    expect(await rootOf(C)).toEqual(NONEMPTY_ROOT);
  });

  it('hands out one code array per code hash across resets (the jump-analysis cache keys on it)', async () => {
    const { reader, state } = fixture();
    const first = await state.getCode(B);
    state.reset(reader);
    expect(await state.getCode(B)).toBe(first);
  });
});

describe('hex helpers', () => {
  it('round-trips keys and minimal integers', () => {
    expect(toHexKey(Uint8Array.of(0, 0xab))).toBe('0x00ab');
    expect(fromHex('0xabc')).toEqual(Uint8Array.of(0x0a, 0xbc));
    expect(bigintToMinimalBytes(0n)).toEqual(new Uint8Array(0));
    expect(bigintToMinimalBytes(0x0100n)).toEqual(Uint8Array.of(1, 0));
    expect(() => fromHex('0xzz')).toThrow(/invalid hex/);
  });
});
