// The --dev sealer over a real chain and pool: pending transactions are sealed (period 0), blocks sit on whole
// beacon slots with the previous beacon root (which the EIP-4788 contract stores), blob sidecars are kept for the
// beacon API, and period N seals empty blocks on every slot. Safe and finalized follow geth's simulated beacon,
// and reorg replaces the last blocks (the dev chain's anvil_reorg).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineKzg, toBlobs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { BlockBuilder } from '../../../../../src/main/exec/chain/builder.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { dbPoolChain } from '../../../../../src/main/exec/chain/poolChain.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { DevBeacon } from '../../../../../src/main/exec/dev/beacon.js';
import { devGenesis } from '../../../../../src/main/exec/dev/genesis.js';
import {
  DEV_EPOCH_LENGTH,
  DevSealer,
  type DevSealerOptions,
  devFinalizedNumber,
} from '../../../../../src/main/exec/dev/sealer.js';
import { DevSidecarStore } from '../../../../../src/main/exec/dev/sidecarStore.js';
import { rebuildBeacon } from '../../../../../src/main/exec/dev/start.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { keccak256 as keccak } from '../../../../../src/main/native/keccak.js';
import { load as loadCKzg } from '../../../../../src/main/protocol/crypto/kzg.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const ACCOUNT = privateKeyToAccount(`0x${'42'.repeat(32)}`);
const BEACON_ROOTS = Uint8Array.from(Buffer.from('000f3df6d732807ef1319fb7b8bb8522d0beac02', 'hex'));
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const slotKey = (n: bigint) => bytes(n.toString(16).padStart(64, '0'));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  period: number,
  now?: () => number,
  extra: Partial<DevSealerOptions> = {},
  sealerLogger = logger,
  sidecars?: DevSidecarStore,
) {
  const genesisTime = BigInt(Math.floor(Date.now() / 1000)) - 100n;
  const db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db);
  await store.initGenesis(devGenesis({ developer: ACCOUNT.address, gasLimit: 30_000_000n, timestamp: genesisTime }));
  const pool = await TernTxPool.open(dbPoolChain(db, store.config()), {}, { logger });
  const stop = headEvents(db).on(() => void pool.onNewHead());
  const builder = await BlockBuilder.create(store, new InlineSenderRecovery(), { logger, pool });
  const beacon = new DevBeacon({
    genesisTime,
    secondsPerSlot: period === 0 ? 1 : period,
    ...(sidecars ? { onSidecarsDropped: (b) => sidecars.delete(b.blockNumber, b.blockHash) } : {}),
  });
  const g = store.head();
  beacon.add({ number: 0n, hash: g.hash, timestamp: g.header.timestamp, stateRoot: g.header.stateRoot });
  const sealer = new DevSealer({ period, ...(now ? { now } : {}), ...extra }, store, builder, pool, beacon, {
    logger: sealerLogger,
    sidecars,
  });
  cleanups.push(async () => {
    await sealer.stop();
    stop();
    await pool.close();
    await db.close();
  });
  return { store, pool, beacon, sealer, genesisTime, builder };
}

const transfer = async (nonce: number) =>
  bytes(
    await ACCOUNT.signTransaction({
      type: 'eip1559',
      chainId: 1337,
      nonce,
      to: `0x${'11'.repeat(20)}`,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    }),
  );

async function waitFor<T>(f: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('DevSealer', () => {
  it('period 0: seals pending transactions on whole slots, linking beacon roots', async () => {
    const { store, pool, beacon, sealer, genesisTime } = await setup(0);
    sealer.start();
    const genesisRoot = beacon.headRoot();
    expect((await pool.add(await transfer(0), { local: true })).ok).toBe(true);
    await waitFor(() => store.head().number >= 1n || undefined);
    const b1 = store.blockByNumber(1n)!;
    expect(b1.transactions).toHaveLength(1);
    const h = b1.header;
    expect(h.parentBeaconBlockRoot).toEqual(genesisRoot);
    expect(h.withdrawalsRoot).toBeDefined();
    expect(b1.withdrawals).toEqual([]);
    expect(h.mixHash.some((x) => x !== 0)).toBe(true);
    // Whole slots at 1 s per slot, and at least the current time.
    expect(h.timestamp).toBeGreaterThanOrEqual(genesisTime + 100n);
    expect(beacon.bySlot(h.timestamp - genesisTime)?.blockHash).toEqual(store.head().hash);
    // The EIP-4788 contract stored the parent beacon root under the block time.
    const ring = h.timestamp % 8191n;
    const reader = store.stateReader();
    expect(reader.getStorage(BEACON_ROOTS, slotKey(ring))).toBe(h.timestamp);
    expect(reader.getStorage(BEACON_ROOTS, slotKey(ring + 8191n))).toBe(
      BigInt(`0x${Buffer.from(genesisRoot).toString('hex')}`),
    );
    await waitFor(() => pool.status().pending === 0 || undefined);

    // A burst of transactions ends up sealed, the next block one slot later at least.
    for (let n = 1; n <= 3; n++) expect((await pool.add(await transfer(n), { local: true })).ok).toBe(true);
    await waitFor(() => (pool.status().pending === 0 && store.head().number >= 2n) || undefined);
    let txs = 0;
    for (let n = 2n; n <= store.head().number; n++) {
      const b = store.blockByNumber(n)!;
      txs += b.transactions.length;
      expect(b.header.timestamp).toBeGreaterThan(store.blockByNumber(n - 1n)!.header.timestamp);
      expect(b.header.parentBeaconBlockRoot).toEqual(
        beacon.bySlot(store.blockByNumber(n - 1n)!.header.timestamp - genesisTime)!.root,
      );
    }
    expect(txs).toBe(3);
  });

  it('period 0: pending transactions go in one block, a flood makes no empty block and sealing stops with the pool', async () => {
    const { store, pool, sealer, builder } = await setup(0);
    for (let n = 0; n < 40; n++) expect((await pool.add(await transfer(n), { local: true })).ok).toBe(true);
    sealer.start();
    await waitFor(() => (pool.status().pending === 0 && store.head().number >= 1n) || undefined);
    expect(store.head().number).toBe(1n);
    expect(store.blockByNumber(1n)!.transactions).toHaveLength(40);

    // One at a time, as fast as the pool takes them, while each block takes a while to build (a loaded node):
    // every block carries transactions.
    const build = builder.build.bind(builder);
    builder.build = async (...args) => {
      await new Promise((r) => setTimeout(r, 30));
      return build(...args);
    };
    const signed = await Promise.all(Array.from({ length: 60 }, (_, i) => transfer(40 + i)));
    for (const raw of signed) {
      expect((await pool.add(raw, { local: true })).ok).toBe(true);
      await new Promise((r) => setTimeout(r, 8));
    }
    await waitFor(() => pool.status().pending === 0 || undefined);
    const head = store.head().number;
    let txs = 0;
    for (let n = 1n; n <= head; n++) {
      const count = store.blockByNumber(n)!.transactions.length;
      expect(count, `block ${n}`).toBeGreaterThan(0);
      txs += count;
    }
    expect(txs).toBe(100);
    await new Promise((r) => setTimeout(r, 300));
    expect(store.head().number).toBe(head);
  });

  it('period 0: nothing is sealed once stopped, and a stopping sealer logs no failure', async () => {
    const lines: string[] = [];
    const capture = createLogger({
      level: 'info',
      format: 'json',
      stream: { write: (l: string) => lines.push(l) },
    }).logger;
    const { store, pool, sealer } = await setup(0, undefined, {}, capture);
    sealer.start();
    const signed = await Promise.all(Array.from({ length: 80 }, (_, i) => transfer(i)));
    const flood = (async () => {
      for (const raw of signed) await pool.add(raw, { local: true });
    })();
    await waitFor(() => store.head().number >= 1n || undefined);
    await sealer.stop();
    const head = store.head().number;
    await flood;
    for (let n = 80; n < 85; n++) expect((await pool.add(await transfer(n), { local: true })).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(store.head().number).toBe(head);
    expect(pool.status().pending).toBeGreaterThan(0);
    await expect(sealer.seal()).rejects.toThrow(/stopped/);
    expect(lines.filter((l) => /"lvl":"(error|eror)"|Sealing failed/.test(l))).toEqual([]);
  });

  it('keeps the sidecars of sealed blob transactions, on disk too: a restart serves them again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-dev-blobs-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const sidecarStore = new DevSidecarStore(dir);
    const { store, pool, beacon, sealer, genesisTime } = await setup(0, undefined, {}, logger, sidecarStore);
    const kzg = defineKzg(loadCKzg());
    const blobs = toBlobs({ data: `0x${Buffer.from('hello tern dev chain').toString('hex')}` });
    const raw = await ACCOUNT.signTransaction({
      type: 'eip4844',
      chainId: 1337,
      nonce: 0,
      to: `0x${'22'.repeat(20)}`,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerBlobGas: 10_000_000_000n,
      blobs,
      kzg,
    });
    const added = await pool.add(bytes(raw), { local: true });
    expect(added).toMatchObject({ ok: true });
    const sealed = await sealer.seal();
    expect(sealed.txs).toBe(1);
    expect(store.head().header.blobGasUsed).toBe(131_072n);
    const sc = beacon.bySlot(sealed.beacon.header.slot)!.sidecars!;
    expect(sc).toHaveLength(1);
    expect(`0x${Buffer.from(sc[0]!.blob).toString('hex')}`).toBe(blobs[0]);
    const commitment = loadCKzg().blobToKzgCommitment(sc[0]!.blob);
    expect(sc[0]!.commitment).toEqual(new Uint8Array(commitment));
    expect(loadCKzg().verifyBlobKzgProof(sc[0]!.blob, sc[0]!.commitment, sc[0]!.proof)).toBe(true);

    // A restart: the beacon record is rebuilt from the chain, with the sidecars from disk.
    await sealer.seal();
    const restarted = new DevBeacon({ genesisTime, secondsPerSlot: 1 });
    rebuildBeacon(store, restarted, new DevSidecarStore(dir));
    const again = restarted.byNumber(sealed.number)!;
    expect(again.root).toEqual(sealed.beacon.root);
    expect(again.sidecars?.map((x) => x.versionedHash)).toEqual(sc.map((x) => x.versionedHash));
    expect(again.sidecars?.[0]?.blob).toEqual(sc[0]!.blob);
    expect(again.sidecars?.[0]?.proof).toEqual(sc[0]!.proof);
    expect(restarted.byNumber(sealed.number + 1n)?.sidecars).toEqual([]);

    // A reorg that takes the block off the chain deletes its file; a restart then has nothing for that height.
    await sealer.reorg(2);
    expect(readdirSync(dir)).toEqual([]);
    const after = new DevBeacon({ genesisTime, secondsPerSlot: 1 });
    rebuildBeacon(store, after, new DevSidecarStore(dir));
    expect(after.byNumber(sealed.number)?.sidecars).toEqual([]);
  });

  it('follows the clock: empty blocks on the current slot, never two in one slot', async () => {
    let now = Date.now();
    const { store, sealer, genesisTime } = await setup(0, () => now);
    const a = await sealer.seal();
    expect(a.txs).toBe(0);
    const t1 = store.head().header.timestamp;
    expect(t1).toBe(BigInt(Math.floor(now / 1000)));
    await sealer.seal();
    expect(store.head().header.timestamp).toBe(t1 + 1n);
    now += 60_000;
    await sealer.seal();
    expect(store.head().header.timestamp).toBe(BigInt(Math.floor(now / 1000)));
    expect((store.head().header.timestamp - genesisTime) % 1n).toBe(0n);
  });

  it('period N: seals (empty) blocks every slot of N seconds', async () => {
    const { store, sealer, genesisTime } = await setup(1);
    sealer.start();
    await waitFor(() => store.head().number >= 2n || undefined, 5000);
    const h1 = store.blockByNumber(1n)!.header;
    const h2 = store.blockByNumber(2n)!.header;
    expect(h2.timestamp - h1.timestamp).toBe(1n);
    expect(h1.timestamp - genesisTime).toBeGreaterThanOrEqual(100n);
  });

  it("marks safe and finalized like geth's simulated beacon: head safe, last epoch boundary final", async () => {
    expect(DEV_EPOCH_LENGTH).toBe(32);
    expect([0n, 1n, 31n, 32n, 33n, 63n, 64n, 65n].map((n) => devFinalizedNumber(n))).toEqual([
      0n,
      0n,
      0n,
      32n,
      32n,
      32n,
      64n,
      64n,
    ]);
    const { store, sealer } = await setup(0, undefined, { epochLength: 4 });
    expect(store.safeHash()).toBeUndefined();
    sealer.start();
    // start() marks the head it finds (genesis here).
    await waitFor(() => store.safeHash());
    expect(store.safeHash()).toEqual(store.canonicalHash(0n));
    expect(store.finalizedHash()).toEqual(store.canonicalHash(0n));
    const want = [0n, 0n, 0n, 4n, 4n, 4n, 4n, 8n, 8n];
    for (let n = 1n; n <= 9n; n++) {
      await sealer.seal();
      expect(store.safeHash(), `safe at ${n}`).toEqual(store.canonicalHash(n));
      expect(store.finalizedHash(), `finalized at ${n}`).toEqual(store.canonicalHash(want[Number(n) - 1]!));
    }
  });

  it('reorg replaces the last blocks with empty ones on the same slots; the pool seals the dropped transactions again', async () => {
    const { store, pool, beacon, sealer } = await setup(0, undefined, { epochLength: 4 });
    for (let i = 0; i < 4; i++) await sealer.seal(); // #4: finalized
    expect((await pool.add(await transfer(0), { local: true })).ok).toBe(true);
    await sealer.seal(); // #5 holds the transfer
    await sealer.seal(); // #6
    const txHash = keccak(store.blockByNumber(5n)!.transactions[0]!);
    const old = [5n, 6n].map((n) => ({ hash: store.canonicalHash(n)!, header: store.headerByNumber(n)! }));
    const oldRoots = old.map((o) => beacon.byNumber(o.header.number)!.root);
    const r = await sealer.reorg(2);
    expect(r.depth).toBe(2);
    expect(r.ancestor.number).toBe(4n);
    expect(r.oldHead).toEqual({ number: 6n, hash: old[1]!.hash });
    expect(r.dropped).toEqual([txHash]);
    // Same height, new hashes, same timestamps (slots), no transactions; the chain links and the beacon follows.
    expect(store.head().number).toBe(6n);
    expect(r.newHead.hash).toEqual(store.head().hash);
    for (const [i, n] of [5n, 6n].entries()) {
      const b = store.blockByNumber(n)!;
      expect(store.canonicalHash(n)).not.toEqual(old[i]!.hash);
      expect(b.header.timestamp).toBe(old[i]!.header.timestamp);
      expect(b.transactions).toHaveLength(0);
      expect(b.header.parentHash).toEqual(store.canonicalHash(n - 1n));
      const bb = beacon.byNumber(n)!;
      expect(bb.blockHash).toEqual(store.canonicalHash(n));
      expect(beacon.bySlot(bb.header.slot)).toBe(bb);
      expect(beacon.byRoot(oldRoots[i]!)).toBeUndefined();
      expect(b.header.parentBeaconBlockRoot).toEqual(beacon.byNumber(n - 1n)!.root);
    }
    expect(beacon.head()?.blockHash).toEqual(store.head().hash);
    expect(store.txLookup(txHash)).toBeUndefined();
    expect(store.safeHash()).toEqual(store.head().hash);
    expect(store.finalizedHash()).toEqual(store.canonicalHash(4n));
    // The transfer went back to the pool and the next block carries it.
    expect(pool.status().pending).toBe(1);
    const next = await sealer.seal();
    expect(next.txs).toBe(1);
    expect(store.txLookup(txHash)?.blockNumber).toBe(7);
  });

  it('reorg refuses to replace the finalized block, and a depth that is not a positive integer', async () => {
    const { store, sealer } = await setup(0, undefined, { epochLength: 4 });
    for (let i = 0; i < 5; i++) await sealer.seal(); // head #5, finalized #4
    const head = store.head().hash;
    await expect(sealer.reorg(2)).rejects.toThrow(/finalized block #4; at most 1 blocks/);
    await expect(sealer.reorg(0)).rejects.toThrow(/positive integer/);
    expect(store.head().hash).toEqual(head);
    const r = await sealer.reorg(1);
    expect(r.newHead.number).toBe(5n);
    expect(r.newHead.hash).not.toEqual(head);
    // The queue goes on after a refusal: sealing still works.
    expect((await sealer.seal()).number).toBe(6n);
  });
});
