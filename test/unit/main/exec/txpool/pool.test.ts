// The pool's behaviour flag by flag, against a fake chain: admission checks with geth's messages, pending and
// queued with promotion, replacement by price bump, the per-account and global limits, lifetime eviction,
// locals, new heads, and the order the block builder sees.
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { TxPoolOptions } from '../../../../../src/main/exec/txpool/options.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { FakeChain, type Key, keys, type TxSpec, tx } from './fakeChain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const ETH = 10n ** 18n;
const [A, B, C, D] = keys as [Key, Key, Key, Key];
const pools: TernTxPool[] = [];

async function open(opts: Partial<TxPoolOptions> = {}, chain = new FakeChain(), now?: () => number) {
  for (const k of keys) if (!chain.accounts.has(k.address.toLowerCase())) chain.fund(k.address, ETH);
  const pool = await TernTxPool.open(chain, opts, { logger, ...(now ? { now } : {}) });
  pools.push(pool);
  return { pool, chain };
}

afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

async function add(pool: TernTxPool, key: Key, s: TxSpec, local = false) {
  return pool.add(await tx(key, s), { local });
}

const addr = (k: Key) => k.address.toLowerCase();
const nonces = (pool: TernTxPool, kind: 'pending' | 'queued', k: Key) =>
  (pool.content(Buffer.from(k.address.slice(2), 'hex'))[kind].get(addr(k)) ?? []).map((t) => Number(t.tx.nonce));

describe('admission', () => {
  it('refuses with geth messages and code -32000', async () => {
    const { pool, chain } = await open({ maxTxGas: 100_000n });
    chain.setNonce(A.address, 5n);
    const msg = async (s: TxSpec, k: Key = A) => {
      const r = await add(pool, k, s);
      expect(r.ok).toBe(false);
      if (r.ok) return '';
      expect(r.code).toBe(-32000);
      return r.message;
    };
    expect(await msg({ nonce: 4 })).toBe('nonce too low: next nonce 5, tx nonce 4');
    expect(await msg({ nonce: 5, gas: 20_000n })).toBe('intrinsic gas too low: gas 20000, minimum needed 21000');
    expect(await msg({ nonce: 5, gas: 100_001n })).toMatch(/^transaction gas limit exceeds the pool maximum/);
    expect(await msg({ nonce: 5, gas: 40_000_000n })).toBe('exceeds block gas limit');
    expect(await msg({ nonce: 5, value: 2n * ETH })).toMatch(/^insufficient funds for gas \* price \+ value: balance/);
    expect(await msg({ nonce: 5, tip: 0n })).toBe(
      'transaction gas price below minimum: gas tip cap 0, minimum needed 1',
    );
    expect(await msg({ nonce: 5, data: `0x${'ff'.repeat(131_072)}`, gas: 10_000_000n })).toMatch(/^oversized data/);
    expect((await add(pool, A, { nonce: 5 })).ok).toBe(true);
    expect(await msg({ nonce: 5 })).toBe('already known');
  });

  it("counts the cost of the sender's pooled transactions against its balance", async () => {
    const chain = new FakeChain();
    chain.fund(A.address, 2n * 21_000n * 2_000_000_000n + 1n);
    const { pool } = await open({}, chain);
    expect((await add(pool, A, { nonce: 0 })).ok).toBe(true);
    expect((await add(pool, A, { nonce: 1 })).ok).toBe(true);
    const r = await add(pool, A, { nonce: 2 });
    expect(r.ok ? '' : r.message).toMatch(/^insufficient funds for gas \* price \+ value: balance .* queued cost/);
  });

  it('refuses a fee cap below the head base fee; the builder skips one below its block base fee', async () => {
    const { pool } = await open();
    const low = await add(pool, A, { nonce: 0, feeCap: 10n, tip: 1n });
    expect(low.ok ? 'ok' : low.message).toMatch(
      /^max fee per gas less than block base fee: address 0x[0-9a-f]{40}, maxFeePerGas: 10, baseFee: 1000000000$/,
    );
    expect((await add(pool, A, { nonce: 0, feeCap: 2_000_000_000n, tip: 1n })).ok).toBe(true);
    expect([...pool.pendingForBlock({ baseFee: 3_000_000_000n, gasLimit: 30_000_000n })]).toHaveLength(0);
    expect([...pool.pendingForBlock({ baseFee: 1_000_000_000n, gasLimit: 30_000_000n })]).toHaveLength(1);
  });

  it('--txpool.pricelimit applies to remotes, not to locals; --txpool.nolocals removes the exemption', async () => {
    const { pool } = await open({ priceLimit: 100n, locals: [B.address] });
    expect((await add(pool, A, { nonce: 0, tip: 99n })).ok).toBe(false);
    expect((await add(pool, A, { nonce: 0, tip: 99n }, true)).ok).toBe(true);
    expect((await add(pool, B, { nonce: 0, tip: 1n })).ok).toBe(true);
    const { pool: strict } = await open({ priceLimit: 100n, noLocals: true, locals: [B.address] });
    expect((await add(strict, A, { nonce: 0, tip: 99n }, true)).ok).toBe(false);
    expect((await add(strict, B, { nonce: 0, tip: 1n })).ok).toBe(false);
  });
});

describe('pending and queued', () => {
  it('queues a nonce gap and promotes when it fills, announcing pending hashes', async () => {
    const { pool } = await open();
    const seen: string[] = [];
    pool.subscribe((h) => seen.push(Buffer.from(h).toString('hex')));
    await add(pool, A, { nonce: 2 });
    await add(pool, A, { nonce: 1 });
    expect(nonces(pool, 'queued', A)).toEqual([1, 2]);
    expect(pool.status()).toEqual({ pending: 0, queued: 2 });
    await add(pool, A, { nonce: 0 });
    expect(nonces(pool, 'pending', A)).toEqual([0, 1, 2]);
    expect(pool.status()).toEqual({ pending: 3, queued: 0 });
    expect(seen).toHaveLength(3);
    expect(pool.pendingNonce(Buffer.from(A.address.slice(2), 'hex'), 0n)).toBe(3n);
  });

  it('replaces only with --txpool.pricebump more on both fee caps', async () => {
    const { pool } = await open({ priceBump: 10n });
    await add(pool, A, { nonce: 0, tip: 100n, feeCap: 2_000_000_000n });
    const under = await add(pool, A, { nonce: 0, tip: 109n, feeCap: 2_200_000_000n });
    expect(under.ok ? '' : under.message).toBe('replacement transaction underpriced');
    const under2 = await add(pool, A, { nonce: 0, tip: 110n, feeCap: 2_100_000_000n });
    expect(under2.ok).toBe(false);
    const ok = await add(pool, A, { nonce: 0, tip: 110n, feeCap: 2_200_000_000n });
    expect(ok.ok).toBe(true);
    expect(pool.status()).toEqual({ pending: 1, queued: 0 });
    // Queued transactions follow the same rule.
    await add(pool, A, { nonce: 5, tip: 100n });
    expect((await add(pool, A, { nonce: 5, tip: 105n, feeCap: 2_100_000_000n })).ok).toBe(false);
    expect((await add(pool, A, { nonce: 5, tip: 200n, feeCap: 3_000_000_000n })).ok).toBe(true);
    expect(pool.status()).toEqual({ pending: 1, queued: 1 });
  });

  it("--txpool.accountqueue caps one account's queue (highest nonces go)", async () => {
    const { pool } = await open({ accountQueue: 2 });
    for (const n of [3, 4, 5]) await add(pool, A, { nonce: n });
    expect(nonces(pool, 'queued', A)).toEqual([3, 4]);
  });

  it("--txpool.globalqueue drops the longest-idle accounts' queues first", async () => {
    let t = 0;
    const { pool } = await open({ globalQueue: 3 }, new FakeChain(), () => t);
    t = 1;
    await add(pool, A, { nonce: 1 });
    await add(pool, A, { nonce: 2 });
    t = 2;
    await add(pool, B, { nonce: 1 });
    t = 3;
    await add(pool, C, { nonce: 1 });
    expect(pool.status().queued).toBe(3);
    expect(nonces(pool, 'queued', A)).toEqual([1]);
    expect(nonces(pool, 'queued', B)).toEqual([1]);
    expect(nonces(pool, 'queued', C)).toEqual([1]);
  });

  it('--txpool.globalslots trims accounts above --txpool.accountslots', async () => {
    const { pool } = await open({ globalSlots: 6, accountSlots: 2, globalQueue: 100 });
    for (let n = 0; n < 5; n++) await add(pool, A, { nonce: n });
    expect(nonces(pool, 'pending', A)).toEqual([0, 1, 2, 3, 4]);
    for (let n = 0; n < 3; n++) await add(pool, B, { nonce: n });
    // 8 pending > 6: A (the biggest spammer) gives back down to B's level, then both toward accountslots.
    const a = nonces(pool, 'pending', A).length;
    const b = nonces(pool, 'pending', B).length;
    expect(a + b).toBe(6);
    expect(a).toBe(3);
    expect(b).toBe(3);
  });

  it('a full pool evicts its cheapest remote for a better one and refuses a cheaper one', async () => {
    const { pool } = await open({ globalSlots: 1, globalQueue: 1, accountSlots: 1 });
    await add(pool, A, { nonce: 0, tip: 5n });
    await add(pool, B, { nonce: 0, tip: 10n });
    const cheap = await add(pool, C, { nonce: 0, tip: 1n });
    expect(cheap.ok ? '' : cheap.message).toBe('transaction underpriced');
    expect((await add(pool, C, { nonce: 0, tip: 20n })).ok).toBe(true);
    expect(nonces(pool, 'pending', A)).toEqual([]);
    expect(nonces(pool, 'pending', C)).toEqual([0]);
    // A local is never refused as underpriced: it evicts remotes.
    expect((await add(pool, D, { nonce: 0, tip: 1n }, true)).ok).toBe(true);
  });

  it("a local flood never locks other accounts out (issue repro: B's gapped nonces 1-100, A's nonce 0)", async () => {
    const limits = { globalSlots: 16, globalQueue: 64, accountQueue: 8 };
    const { pool } = await open(limits);
    // Locals skip the per-account queue limit, as in geth: all 100 of B's gapped transactions stay.
    for (let n = 1; n <= 100; n++) expect((await add(pool, B, { nonce: n }, true)).ok).toBe(true);
    expect(nonces(pool, 'queued', B)).toHaveLength(100);
    // A local executable transaction from another account: admitted (geth forces locals in).
    expect((await add(pool, A, { nonce: 0 }, true)).ok).toBe(true);
    // A remote executable one too; both take the room of B's furthest non-executable transactions, so the pool
    // is back within its limits.
    expect((await add(pool, C, { nonce: 0 })).ok).toBe(true);
    expect(nonces(pool, 'pending', A)).toEqual([0]);
    expect(nonces(pool, 'pending', C)).toEqual([0]);
    expect(nonces(pool, 'queued', B)).toEqual(Array.from({ length: 78 }, (_, i) => i + 1));
    expect(pool.status().pending + pool.status().queued).toBe(limits.globalSlots + limits.globalQueue);
    // A remote gapped one is held to geth's rules: no cheaper than the cheapest remote, never pushing out a
    // pending transaction, and no room taken from anyone's queue.
    const gapped = await add(pool, D, { nonce: 3 });
    expect(gapped.ok ? '' : gapped.message).toBe('transaction underpriced');
    const dearer = await add(pool, D, { nonce: 3, tip: 5_000_000_000n, feeCap: 9_000_000_000n });
    expect(dearer.ok ? '' : dearer.message).toBe('future transaction tries to replace pending');
    expect(nonces(pool, 'queued', B)).toHaveLength(78);
  });

  it('a local flood of executable transactions does not refuse an executable remote; the remotes stay bounded', async () => {
    const { pool } = await open({ globalSlots: 4, globalQueue: 4, accountSlots: 2 });
    for (let n = 0; n < 20; n++) expect(await add(pool, B, { nonce: n }, true)).toMatchObject({ ok: true });
    expect(nonces(pool, 'pending', B)).toHaveLength(20);
    expect(await add(pool, A, { nonce: 0 })).toMatchObject({ ok: true });
    expect((await add(pool, A, { nonce: 1 })).ok).toBe(true);
    expect(nonces(pool, 'pending', A)).toEqual([0, 1]);
    expect(nonces(pool, 'pending', B)).toHaveLength(20);
  });

  it('a gapped remote never evicts a pending transaction (future transaction tries to replace pending)', async () => {
    const { pool } = await open({ globalSlots: 1, globalQueue: 1, accountSlots: 1 });
    await add(pool, A, { nonce: 0, tip: 5n });
    await add(pool, B, { nonce: 0, tip: 10n });
    const future = await add(pool, C, { nonce: 5, tip: 20n });
    expect(future.ok ? '' : future.message).toBe('future transaction tries to replace pending');
    expect(nonces(pool, 'pending', A)).toEqual([0]);
  });

  it("--txpool.lifetime drops idle remote queues, not locals'", async () => {
    let t = 0;
    const { pool } = await open({ lifetimeMs: 1000, locals: [B.address] }, new FakeChain(), () => t);
    await add(pool, A, { nonce: 3 });
    await add(pool, B, { nonce: 3 });
    t = 500;
    pool.evictStale();
    expect(pool.status().queued).toBe(2);
    t = 1500;
    pool.evictStale();
    expect(nonces(pool, 'queued', A)).toEqual([]);
    expect(nonces(pool, 'queued', B)).toEqual([3]);
  });
});

describe('new heads and the block builder', () => {
  it('drops included transactions and promotes what became executable', async () => {
    const { pool, chain } = await open();
    await add(pool, A, { nonce: 0 });
    await add(pool, A, { nonce: 1 });
    await add(pool, B, { nonce: 1 });
    chain.setNonce(A.address, 1n);
    chain.setNonce(B.address, 1n);
    chain.advance();
    await pool.onNewHead();
    expect(nonces(pool, 'pending', A)).toEqual([1]);
    expect(nonces(pool, 'pending', B)).toEqual([1]);
    expect(pool.status()).toEqual({ pending: 2, queued: 0 });
  });

  it('demotes transactions the sender can no longer pay for', async () => {
    const { pool, chain } = await open();
    await add(pool, A, { nonce: 0 });
    await add(pool, A, { nonce: 1, value: ETH / 2n });
    await add(pool, A, { nonce: 2 });
    chain.fund(A.address, ETH / 4n);
    chain.advance();
    await pool.onNewHead();
    // geth filters each transaction by its own cost; those after a dropped one wait in the queue.
    expect(nonces(pool, 'pending', A)).toEqual([0]);
    expect(nonces(pool, 'queued', A)).toEqual([2]);
  });

  it('orders by effective tip across senders and nonce within one, and honours skipSender', async () => {
    const { pool } = await open();
    await add(pool, A, { nonce: 0, tip: 1n });
    await add(pool, A, { nonce: 1, tip: 100n });
    await add(pool, B, { nonce: 0, tip: 50n });
    await add(pool, C, { nonce: 0, tip: 10n });
    await add(pool, C, { nonce: 1, tip: 10n });
    const it1 = pool.pendingForBlock({ baseFee: 1_000_000_000n, gasLimit: 30_000_000n });
    const order = [...it1].map((p) => `${Buffer.from(p.sender).toString('hex').slice(0, 4)}:${p.tx.nonce}`);
    const short = (k: Key) => k.address.slice(2, 6).toLowerCase();
    expect(order).toEqual([`${short(B)}:0`, `${short(C)}:0`, `${short(C)}:1`, `${short(A)}:0`, `${short(A)}:1`]);
    const it2 = pool.pendingForBlock({ baseFee: 1_000_000_000n, gasLimit: 30_000_000n });
    const got: string[] = [];
    for (const p of it2) {
      got.push(`${Buffer.from(p.sender).toString('hex').slice(0, 4)}:${p.tx.nonce}`);
      if (p.tx.nonce === 0n && Buffer.from(p.sender).toString('hex').startsWith(short(C))) it2.skipSender(p.sender);
    }
    expect(got).toEqual([`${short(B)}:0`, `${short(C)}:0`, `${short(A)}:0`, `${short(A)}:1`]);
  });

  it('puts locals first', async () => {
    const { pool } = await open();
    await add(pool, A, { nonce: 0, tip: 100n });
    await add(pool, B, { nonce: 0, tip: 1n }, true);
    const first = [...pool.pendingForBlock({ baseFee: 1_000_000_000n, gasLimit: 30_000_000n })][0];
    expect(Buffer.from(first?.sender ?? []).toString('hex')).toBe(addr(B).slice(2));
  });
});
