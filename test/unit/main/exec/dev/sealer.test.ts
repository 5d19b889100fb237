// The --dev sealer over a real chain and pool: pending transactions are sealed (period 0), blocks sit on whole
// beacon slots with the previous beacon root (which the EIP-4788 contract stores), blob sidecars are kept for the
// beacon API, and period N seals empty blocks on every slot.
import { defineKzg, toBlobs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { BlockBuilder } from '../../../../../src/main/exec/chain/builder.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { DevBeacon } from '../../../../../src/main/exec/dev/beacon.js';
import { devGenesis } from '../../../../../src/main/exec/dev/genesis.js';
import { DevSealer } from '../../../../../src/main/exec/dev/sealer.js';
import { load as loadCKzg } from '../../../../../src/main/exec/evm/kzg.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { dbPoolChain } from '../../../../../src/main/exec/txpool/chain.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const ACCOUNT = privateKeyToAccount(`0x${'42'.repeat(32)}`);
const BEACON_ROOTS = Uint8Array.from(Buffer.from('000f3df6d732807ef1319fb7b8bb8522d0beac02', 'hex'));
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const slotKey = (n: bigint) => bytes(n.toString(16).padStart(64, '0'));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(period: number, now?: () => number) {
  const genesisTime = BigInt(Math.floor(Date.now() / 1000)) - 100n;
  const db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db);
  await store.initGenesis(devGenesis({ developer: ACCOUNT.address, gasLimit: 30_000_000n, timestamp: genesisTime }));
  const pool = await TernTxPool.open(dbPoolChain(db, store.config()), {}, { logger });
  const stop = headEvents(db).on(() => void pool.onNewHead());
  const builder = await BlockBuilder.create(store, new InlineSenderRecovery(), { logger, pool });
  const beacon = new DevBeacon({ genesisTime, secondsPerSlot: period === 0 ? 1 : period });
  const g = store.head();
  beacon.add({ number: 0n, hash: g.hash, timestamp: g.header.timestamp, stateRoot: g.header.stateRoot });
  const sealer = new DevSealer({ period, ...(now ? { now } : {}) }, store, builder, pool, beacon, { logger });
  cleanups.push(async () => {
    await sealer.stop();
    stop();
    await pool.close();
    await db.close();
  });
  return { store, pool, beacon, sealer, genesisTime };
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

  it('keeps the sidecars of sealed blob transactions', async () => {
    const { store, pool, beacon, sealer } = await setup(0);
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
});
