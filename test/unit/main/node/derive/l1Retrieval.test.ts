import { describe, expect, it } from 'vitest';
import { L1Retrieval } from '../../../../../src/main/node/derive/l1Retrieval.js';
import { L1Traversal } from '../../../../../src/main/node/derive/l1Traversal.js';
import { systemConfigFromGenesis } from '../../../../../src/main/node/derive/systemConfig.js';
import { toHex } from '../../../../../src/main/node/derive/types.js';
import { configUpdateLog, testRollupConfig } from './fixtures.js';
import { addressOf, FakeL1, privKey, signTx } from './l1Fake.js';

const cfg = testRollupConfig();
const keyA = privKey(1);
const keyB = privKey(2);
const tx = (key: Uint8Array, data: number, nonce = 0) =>
  signTx(key, { chainId: cfg.l1ChainId, to: cfg.batchInboxAddress, data: Uint8Array.of(data), nonce: BigInt(nonce) });

function setup(l1: FakeL1) {
  const sc = systemConfigFromGenesis(cfg.genesis.systemConfig);
  sc.batcherAddr = addressOf(keyA);
  const t = new L1Traversal(cfg, l1);
  t.reset(l1.block(100).ref, sc);
  return { t, r: new L1Retrieval(cfg, t, l1, undefined) };
}

async function drain(r: L1Retrieval): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const d = await r.nextData();
    if (d === undefined) return out;
    out.push(toHex(d));
  }
}

describe('L1 retrieval', () => {
  it('hands out the batcher data of each L1 block once, one item at a time', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    l1.add({ txs: [tx(keyA, 1), tx(keyA, 2, 1)] });
    l1.add();
    l1.add({ txs: [tx(keyA, 3, 2)] });
    const { t, r } = setup(l1);
    expect(r.origin()).toEqual(l1.block(100).ref);
    expect(await drain(r)).toEqual(['0x01', '0x02']);
    expect(await r.nextData()).toBeUndefined();
    await t.advanceOrigin();
    expect(await drain(r)).toEqual([]);
    await t.advanceOrigin();
    expect(r.origin()).toEqual(l1.block(102).ref);
    expect(await drain(r)).toEqual(['0x03']);
    // Each block's transactions were fetched exactly once.
    expect(l1.calls.filter((c) => c.startsWith('txs:')).length).toBe(3);
  });

  it('authenticates with the batcher of the system config at that very block', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    l1.add({ txs: [tx(keyA, 1), tx(keyB, 2)] });
    // The batcher changes in block 101: its own transactions are already judged with the new batcher.
    l1.add({
      txs: [tx(keyA, 3, 1), tx(keyB, 4, 1)],
      logs: [configUpdateLog(0, `${'00'.repeat(12)}${addressOf(keyB).slice(2)}`)],
    });
    const { t, r } = setup(l1);
    expect(await drain(r)).toEqual(['0x01']);
    await t.advanceOrigin();
    expect(await drain(r)).toEqual(['0x04']);
  });

  it('retries the same block after a failed fetch', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    l1.add({ txs: [tx(keyA, 7)] });
    const { r } = setup(l1);
    const real = l1.infoAndTxsByHash.bind(l1);
    let fail = true;
    l1.infoAndTxsByHash = async (h) => {
      if (fail) {
        fail = false;
        throw Object.assign(new Error('down'), { code: 'L1_RPC', severity: 'temporary' });
      }
      return real(h);
    };
    await expect(r.nextData()).rejects.toMatchObject({ severity: 'temporary' });
    expect(await drain(r)).toEqual(['0x07']);
  });

  it('reset drops what is left of the open block', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    l1.add({ txs: [tx(keyA, 1), tx(keyA, 2, 1)] });
    l1.add({ txs: [tx(keyA, 3, 2)] });
    const { t, r } = setup(l1);
    expect(toHex((await r.nextData()) as Uint8Array)).toBe('0x01');
    const sc = t.systemConfig();
    t.reset(l1.block(101).ref, sc);
    r.reset();
    expect(await drain(r)).toEqual(['0x03']);
  });
});
