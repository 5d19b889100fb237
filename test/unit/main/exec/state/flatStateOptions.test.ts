// FlatState's cache bounds (FlatStateOptions, from --cache.snapshot / --snapshot): how many accounts the overlay keeps
// warm across blocks, how much code it keeps, and whether the per-account estimate matches the heap.
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { CACHED_ACCOUNT_BYTES, FlatState, flatStateDefaults } from '../../../../../src/main/exec/state/flatState.js';
import type { AccountRecord, StateReader } from '../../../../../src/main/exec/state/interface.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';

const CODE = Uint8Array.from([0x60, 0x01, 0x60, 0x00, 0x55, 0x00]);
const CODE_HASH = keccak256(CODE);

/** A reader that counts what it is asked; every account has code CODE and balance 1. */
function countingReader(): StateReader & { accounts: number; codes: number } {
  const r = {
    accounts: 0,
    codes: 0,
    getAccount(): AccountRecord {
      r.accounts++;
      return { nonce: 1n, balance: 1n, codeHash: CODE_HASH.slice() };
    },
    getStorage: () => 0n,
    getCode(): Uint8Array {
      r.codes++;
      return CODE.slice();
    },
  };
  return r;
}

const addr = (i: number) => new Address(Uint8Array.from({ length: 20 }, (_, j) => (j === 19 ? i : 0)));

/** One "block": touch the accounts, commit, and point the overlay at the (same) reader again. */
function block(s: FlatState, reader: StateReader, accounts: number[]): boolean {
  for (const i of accounts) s.addBalance(addr(i), 1n);
  const warm = s.advance(new Map());
  if (warm) s.rebase(reader);
  else s.reset(reader);
  return warm;
}

describe('FlatState cache options', () => {
  it('defaults to the former constants', () => {
    const s = new FlatState(countingReader());
    expect(s.opts).toEqual(flatStateDefaults);
    expect(flatStateDefaults).toEqual({ codeCacheBytes: 64 * 1024 * 1024, maxCachedAccounts: 500_000 });
  });

  it('keeps up to maxCachedAccounts accounts warm across blocks, and starts over above it', () => {
    const reader = countingReader();
    const s = new FlatState(reader, { maxCachedAccounts: 3 });
    expect(block(s, reader, [1, 2, 3])).toBe(true);
    expect(reader.accounts).toBe(3);
    // The next block reads them from the overlay.
    expect(s.getBalance(addr(1))).toBe(2n);
    expect(reader.accounts).toBe(3);
    expect(block(s, reader, [1, 4])).toBe(false); // 4 accounts: over the bound
    expect(reader.accounts).toBe(4);
    s.getBalance(addr(1));
    expect(reader.accounts).toBe(5); // cold again
  });

  it('maxCachedAccounts 0 (--snapshot=false) makes every block start cold', () => {
    const reader = countingReader();
    const s = new FlatState(reader, { maxCachedAccounts: 0, codeCacheBytes: 0 });
    expect(block(s, reader, [1])).toBe(false);
    s.getBalance(addr(1));
    expect(reader.accounts).toBe(2);
  });

  it('keeps code across blocks within codeCacheBytes; 0 keeps none', () => {
    for (const [bytes, reads] of [
      [1024, 1],
      [0, 2],
    ] as const) {
      const reader = countingReader();
      const s = new FlatState(reader, { codeCacheBytes: bytes, maxCachedAccounts: 0 });
      expect(s.getCodeSync(addr(1))).toEqual(CODE);
      s.reset(reader);
      expect(s.getCodeSync(addr(1))).toEqual(CODE);
      expect(reader.codes).toBe(reads);
    }
  });
});

describe('CACHED_ACCOUNT_BYTES', () => {
  it('is within a factor of 1.5 of the measured heap of a cached contract account with 4 slots', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const n = 20_000;
    const reader: StateReader = {
      // Fresh arrays per account, as the database reader decodes them.
      getAccount: () => ({
        nonce: 5n,
        balance: 3n * 10n ** 18n,
        codeHash: randomBytes(32),
        storageRoot: randomBytes(32),
      }),
      getStorage: () => 123_456_789n * 10n ** 20n,
      getCode: () => new Uint8Array(0),
    };
    const addresses = Array.from({ length: n }, () => randomBytes(20));
    const slots = Array.from({ length: 4 }, () => randomBytes(32));
    gc();
    gc();
    const before = process.memoryUsage();
    const s = new FlatState(reader);
    for (const a of addresses) {
      s.getNonce(new Address(a));
      for (const k of slots) s.getStorageValue(a, k);
    }
    gc();
    gc();
    const after = process.memoryUsage();
    const perAccount = (after.heapUsed - before.heapUsed + after.external - before.external) / n;
    expect(s.getNonce(new Address(addresses[0] as Uint8Array))).toBe(5n);
    expect(perAccount / CACHED_ACCOUNT_BYTES).toBeGreaterThan(1 / 1.5);
    expect(perAccount / CACHED_ACCOUNT_BYTES).toBeLessThan(1.5);
  });
});
