// The interop ingress filter, the conditional cost limiter and the builder's view of conditional transactions.
import { describe, expect, it } from 'vitest';
import { decodeConditional } from '../../../../../src/main/exec/rollup/conditional.js';
import { ConditionalRegistry, conditionalPool } from '../../../../../src/main/exec/rollup/conditionalPool.js';
import { InteropFilter, interopAccessList } from '../../../../../src/main/exec/rollup/interop.js';
import { RateLimiter } from '../../../../../src/main/exec/rollup/rateLimiter.js';
import type { PendingTx, TxPool } from '../../../../../src/main/exec/txpool/interface.js';
import type { DecodedTx } from '../../../../../src/main/primitives/tx/decode.js';

const INBOX = Buffer.from('4200000000000000000000000000000000000022', 'hex');
const key = (b: number) => new Uint8Array(32).fill(b);
const txWith = (accessList: Array<readonly [Uint8Array, Uint8Array[]]>, hash = 1): DecodedTx =>
  ({ type: 2, accessList, hash: new Uint8Array(32).fill(hash), raw: new Uint8Array([hash]) }) as unknown as DecodedTx;

describe('interop mempool filter', () => {
  it('joins every CrossL2Inbox key of the access list in order', () => {
    const tx = txWith([
      [INBOX, [key(0xaa)]],
      [new Uint8Array(20).fill(0xcc), [key(0xcc)]],
      [INBOX, [key(0xbb)]],
    ]);
    expect(interopAccessList(tx)).toEqual([`0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`]);
    expect(interopAccessList(txWith([]))).toEqual([]);
  });

  it('asks the supervisor at cross-unsafe for the next block time with a day’s timeout', async () => {
    const calls: unknown[][] = [];
    let fail = false;
    const filter = new InteropFilter(
      { chainId: 901n, nextBlockTime: () => 1000n },
      {
        checkAccessList: async (...args) => {
          calls.push(args);
          if (fail) throw new Error('conflicting data');
        },
      },
    );
    expect(await filter.admit(txWith([[new Uint8Array(20), [key(1)]]]))).toBe(true);
    expect(calls).toEqual([]);
    const interop = txWith([[INBOX, [key(0xaa)]]]);
    expect(await filter.admit(interop, 1000n)).toBe(true);
    expect(calls).toEqual([
      [[`0x${'aa'.repeat(32)}`], 'cross-unsafe', { timestamp: '0x3e8', timeout: '0x15180', chainID: '0x385' }],
    ]);
    fail = true;
    expect(await filter.admit(interop, 1000n)).toBe(false);
  });

  it('refuses interop transactions when interop is not scheduled or the transaction is stale', async () => {
    const ok = { checkAccessList: async () => {} };
    const interop = txWith([[INBOX, [key(0xaa)]]]);
    expect(
      await new InteropFilter({ chainId: 1n, nextBlockTime: () => 'interop time not set' }, ok).admit(interop),
    ).toBe(false);
    expect(await new InteropFilter({ chainId: 1n, nextBlockTime: () => 100_000n }, ok).admit(interop, 1000n)).toBe(
      false,
    );
  });
});

describe('conditional cost limiter', () => {
  it('gives the burst at once, then tokens at the rate, and never more than the burst in one go', async () => {
    let now = 0;
    const l = new RateLimiter({ ratePerSecond: 100, burst: 300, now: () => now });
    expect(l.reserve(301)).toBeUndefined();
    expect(l.reserve(300)).toBe(0);
    expect(l.reserve(50)).toBe(500); // 50 tokens at 100/s
    now = 1500;
    expect(l.reserve(100)).toBe(0);
    const zero = new RateLimiter({ ratePerSecond: 0, burst: 10 });
    expect(await zero.wait(10)).toBe(true);
    expect(await zero.wait(1)).toBe(false);
  });
});

describe('conditional transactions at block building', () => {
  it('skips a transaction whose conditional fails, with its sender’s later ones, and marks it rejected', () => {
    const a = new Uint8Array(20).fill(1);
    const b = new Uint8Array(20).fill(2);
    const txs: PendingTx[] = [
      { tx: txWith([], 1), sender: a },
      { tx: txWith([], 2), sender: a },
      { tx: txWith([], 3), sender: b },
    ];
    const skipped: Uint8Array[] = [];
    const inner = {
      pendingForBlock: () => {
        const it = (function* () {
          for (const t of txs) if (!skipped.some((s) => Buffer.compare(s, t.sender) === 0)) yield t;
        })();
        return { [Symbol.iterator]: () => it, skipSender: (s: Uint8Array) => skipped.push(s) };
      },
    } as unknown as TxPool;
    const registry = new ConditionalRegistry();
    registry.set(new Uint8Array(32).fill(1), decodeConditional({ blockNumberMax: '0x5' }));
    registry.set(new Uint8Array(32).fill(3), decodeConditional({ blockNumberMax: '0x50' }));
    let released = 0;
    const pool = conditionalPool(inner, registry, () => ({
      check: (c) =>
        (c.blockNumberMax ?? 0n) < 10n ? 'failed header check: failed block number maximmum constraint' : undefined,
      release: () => released++,
    }));
    const got = [...pool.pendingForBlock({ baseFee: 0n, gasLimit: 1n })].map((p) => p.tx.hash[0]);
    expect(got).toEqual([3]);
    expect(registry.isRejected(new Uint8Array(32).fill(1))).toBe(true);
    expect(released).toBe(1);
    // Once rejected it stays out even without its conditional.
    skipped.length = 0;
    expect([...pool.pendingForBlock({ baseFee: 0n, gasLimit: 1n })].map((p) => p.tx.hash[0])).toEqual([3]);
  });
});
