import { describe, expect, it } from 'vitest';
import { blobsEnabled, DataSource } from '../../../../../src/main/node/derive/dataSource.js';
import { stageLogger } from '../../../../../src/main/node/derive/frameQueue.js';
import { toHex } from '../../../../../src/main/node/derive/types.js';
import { encodeBlobData } from '../../../../../src/main/protocol/blob/blobData.js';
import { testRollupConfig } from './fixtures.js';
import { addressOf, FakeBlobs, FakeL1, fakeVersionedHash, privKey, signTx } from './l1Fake.js';

const ECOTONE_L1 = 2_000_000;
const cfg = testRollupConfig({ ecotone_time: ECOTONE_L1 });
const inbox = cfg.batchInboxAddress;
const batcherKey = privKey(1);
const batcher = addressOf(batcherKey);
const otherKey = privKey(2);
const bytes = (...b: number[]) => Uint8Array.from(b);

function batcherTx(
  data: Uint8Array,
  o: { key?: Uint8Array; type?: 0 | 2 | 3 | 4; to?: string; chainId?: bigint; blobs?: string[]; nonce?: number } = {},
) {
  return signTx(o.key ?? batcherKey, {
    type: o.type ?? 2,
    chainId: o.chainId ?? cfg.l1ChainId,
    to: o.to ?? inbox,
    data,
    nonce: BigInt(o.nonce ?? 0),
    ...(o.blobs ? { blobHashes: o.blobs } : {}),
  });
}

function source(l1: FakeL1, blobs?: FakeBlobs) {
  return new DataSource(cfg, l1, blobs, stageLogger({}, 'test'));
}

describe('data source: calldata (before Ecotone)', () => {
  it('keeps only transactions to the inbox signed by the batcher, in block order', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    const b = l1.add({
      txs: [
        batcherTx(bytes(1)),
        batcherTx(bytes(2), { key: otherKey }), // someone else
        batcherTx(bytes(3), { to: `0x${'12'.repeat(20)}` }), // not to the inbox
        batcherTx(bytes(4), { type: 0, nonce: 1 }), // legacy EIP-155
        batcherTx(bytes(5), { chainId: 5n, nonce: 2 }), // signed for another chain
        batcherTx(bytes(6), { type: 4, nonce: 3 }), // SetCode: never carries batches
        batcherTx(bytes(7), { type: 3, blobs: [`0x01${'00'.repeat(31)}`], nonce: 4 }), // blob tx: calldata pre-Ecotone
        batcherTx(bytes(8), { nonce: 5 }),
      ],
    });
    const ds = source(l1);
    const out = await ds.fetch(b.ref, batcher);
    expect(out.map((d) => toHex(d))).toEqual(['0x01', '0x04', '0x07', '0x08']);
    expect(ds.stats.txsIgnored).toBe(2); // other sender and other chain (recovered sender differs)
  });

  it('authenticates with the batcher it is given (case-insensitively)', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    const b = l1.add({ txs: [batcherTx(bytes(1)), batcherTx(bytes(2), { key: otherKey })] });
    const out = await source(l1).fetch(b.ref, addressOf(otherKey).toUpperCase().replace('0X', '0x'));
    expect(out.map((d) => toHex(d))).toEqual(['0x02']);
  });

  it('a block without batcher transactions yields nothing', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    const b = l1.add({ txs: [batcherTx(bytes(1), { to: `0x${'12'.repeat(20)}` })] });
    expect(await source(l1).fetch(b.ref, batcher)).toEqual([]);
  });
});

describe('data source: blobs (from Ecotone)', () => {
  it('is enabled by L1 time at Ecotone', () => {
    expect(blobsEnabled(cfg, ECOTONE_L1 - 1)).toBe(false);
    expect(blobsEnabled(cfg, ECOTONE_L1)).toBe(true);
    expect(blobsEnabled(testRollupConfig(), 1e12)).toBe(false);
  });

  it('reads blobs of batcher blob transactions and calldata of the others, in block order, with block-wide blob indices', async () => {
    const payload = (n: number) => Uint8Array.from({ length: 300 }, (_, i) => (i * n) & 0xff);
    const blob = (n: number) => encodeBlobData(payload(n));
    const blobs = new FakeBlobs();
    const hashes = [1, 2, 3, 4, 5].map((n) => {
      const b = blob(n);
      const h = fakeVersionedHash(b);
      blobs.blobs.set(h, b);
      return h;
    });
    const l1 = new FakeL1(100, ECOTONE_L1);
    const blk = l1.add({
      txs: [
        batcherTx(bytes(0xaa), { key: otherKey, type: 3, blobs: [hashes[0] as string] }), // other sender: index 0
        batcherTx(bytes(0xc1), { nonce: 0 }), // calldata
        batcherTx(bytes(0xbb), { type: 3, blobs: [hashes[1] as string, hashes[2] as string], nonce: 1 }), // 1, 2: calldata ignored
        batcherTx(bytes(0xcc), { type: 3, to: `0x${'12'.repeat(20)}`, blobs: [hashes[3] as string], nonce: 2 }), // 3: not inbox
        batcherTx(bytes(0xc2), { nonce: 3 }),
        batcherTx(new Uint8Array(0), { type: 3, blobs: [hashes[4] as string], nonce: 4 }), // 4
      ],
    });
    const out = await source(l1, blobs).fetch(blk.ref, batcher);
    expect(out.map((d) => toHex(d))).toEqual(['0xc1', toHex(payload(2)), toHex(payload(3)), '0xc2', toHex(payload(5))]);
    expect(blobs.requests).toEqual([
      {
        block: 100,
        hashes: [
          { index: 1, hash: hashes[1] },
          { index: 2, hash: hashes[2] },
          { index: 4, hash: hashes[4] },
        ],
      },
    ]);
  });

  it('skips a blob that does not decode and keeps the others', async () => {
    const good = encodeBlobData(bytes(9, 9, 9));
    const bad = encodeBlobData(bytes(1));
    bad[1] = 7; // unknown encoding version
    const blobs = new FakeBlobs();
    const hGood = fakeVersionedHash(good);
    const hBad = fakeVersionedHash(bad);
    blobs.blobs.set(hGood, good);
    blobs.blobs.set(hBad, bad);
    const l1 = new FakeL1(100, ECOTONE_L1);
    const blk = l1.add({ txs: [batcherTx(new Uint8Array(0), { type: 3, blobs: [hBad, hGood] })] });
    const ds = source(l1, blobs);
    expect((await ds.fetch(blk.ref, batcher)).map((d) => toHex(d))).toEqual(['0x090909']);
    expect(ds.stats.blobsInvalid).toBe(1);
  });

  it('does not fetch blobs for blocks without batcher blobs, and needs a blob source otherwise', async () => {
    const l1 = new FakeL1(100, ECOTONE_L1);
    const only = l1.add({ txs: [batcherTx(bytes(1))] });
    const withBlob = l1.add({ txs: [batcherTx(bytes(1), { type: 3, blobs: [`0x01${'22'.repeat(31)}`] })] });
    const blobs = new FakeBlobs();
    expect((await source(l1, blobs).fetch(only.ref, batcher)).map((d) => toHex(d))).toEqual(['0x01']);
    expect(blobs.requests).toEqual([]);
    await expect(source(l1).fetch(withBlob.ref, batcher)).rejects.toMatchObject({
      code: 'BEACON_UNAVAILABLE',
      severity: 'temporary',
    });
    // A missing blob is the blob source's (temporary) error, passed through.
    await expect(source(l1, blobs).fetch(withBlob.ref, batcher)).rejects.toMatchObject({ severity: 'temporary' });
  });
});
