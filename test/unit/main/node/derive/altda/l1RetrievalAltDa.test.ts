// L1 retrieval with the alt-DA step against a real DA server over HTTP: commitments in batcher data become the
// stored inputs, a server that is down makes derivation wait on the same item, and data that does not match its
// commitment is never handed on.
import { afterEach, describe, expect, it } from 'vitest';
import { DaServer } from '../../../../../../src/main/altda/server.js';
import { MemoryDaStore } from '../../../../../../src/main/altda/store.js';
import { createLogger } from '../../../../../../src/main/common/logger/index.js';
import { AltDaInputs } from '../../../../../../src/main/node/derive/altda/altDaInputs.js';
import { DaManager } from '../../../../../../src/main/node/derive/altda/daManager.js';
import { L1Retrieval } from '../../../../../../src/main/node/derive/l1Retrieval.js';
import { L1Traversal } from '../../../../../../src/main/node/derive/l1Traversal.js';
import { systemConfigFromGenesis } from '../../../../../../src/main/node/derive/systemConfig.js';
import { toHex } from '../../../../../../src/main/node/derive/types.js';
import { DaClient } from '../../../../../../src/main/protocol/altda/client.js';
import {
  commitmentTxData,
  encodeCommitment,
  KECCAK_COMMITMENT,
  keccakCommitment,
} from '../../../../../../src/main/protocol/altda/commitment.js';
import { testRollupConfig } from '../fixtures.js';
import { addressOf, FakeL1, privKey, signTx } from '../l1Fake.js';

const log = createLogger({ level: 'silent', format: 'json' }).logger;
const cfg = testRollupConfig();
const key = privKey(1);
const servers: DaServer[] = [];
afterEach(async () => Promise.all(servers.splice(0).map((s) => s.stop())));

const tx = (data: Uint8Array, nonce: number) =>
  signTx(key, { chainId: cfg.l1ChainId, to: cfg.batchInboxAddress, data, nonce: BigInt(nonce) });

const input = Uint8Array.from([0, 0xaa, 0xbb, 0xcc]); // derivation version 0 ++ "frames"
const comm = keccakCommitment(input);

async function setup(txs: Uint8Array[]) {
  const store = new MemoryDaStore();
  const server = new DaServer(store, {}, log);
  servers.push(server);
  const url = await server.start();
  const l1 = new FakeL1(100, 1_000_000);
  l1.add({ txs: txs.map((d, i) => tx(d, i)) });
  const sc = systemConfigFromGenesis(cfg.genesis.systemConfig);
  sc.batcherAddr = addressOf(key);
  const t = new L1Traversal(cfg, l1);
  t.reset(l1.block(100).ref, sc);
  const params = {
    commitmentType: KECCAK_COMMITMENT,
    challengeContract: undefined,
    challengeWindow: 6,
    resolveWindow: 6,
  };
  const manager = new DaManager(params, l1, new DaClient({ url, getTimeoutMs: 2000 }), log);
  const altDa = new AltDaInputs(manager, KECCAK_COMMITMENT, log);
  const r = new L1Retrieval(cfg, t, l1, undefined, {}, altDa);
  r.reset(l1.block(100).ref);
  return { r, store, server };
}

async function drain(r: L1Retrieval): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const d = await r.nextData();
    if (d === undefined) return out;
    out.push(toHex(d));
  }
}

describe('L1 retrieval with alt-DA', () => {
  it('hands on plain batcher data as is and the stored input of a commitment', async () => {
    const { r, store } = await setup([Uint8Array.of(0, 1), commitmentTxData(comm)]);
    await store.put(encodeCommitment(comm), input);
    expect(await drain(r)).toEqual(['0x0001', toHex(input)]);
  });

  it('waits on the same commitment while the DA server is down, then continues', async () => {
    const { r, store, server } = await setup([Uint8Array.of(0, 1), commitmentTxData(comm), Uint8Array.of(0, 2)]);
    await store.put(encodeCommitment(comm), input);
    expect(toHex((await r.nextData()) as Uint8Array)).toBe('0x0001');
    await server.stop();
    await expect(r.nextData()).rejects.toMatchObject({ severity: 'temporary', code: 'ALTDA_UNAVAILABLE' });
    await expect(r.nextData()).rejects.toMatchObject({ severity: 'temporary' });
    await server.start();
    expect(await drain(r)).toEqual([toHex(input), '0x0002']);
  });

  it('never hands on data that does not match its commitment', async () => {
    const { r, store } = await setup([commitmentTxData(comm)]);
    await store.put(encodeCommitment(comm), Uint8Array.of(0, 0xde, 0xad));
    await expect(r.nextData()).rejects.toThrow(/not matching commitment/);
    await expect(r.nextData()).rejects.toMatchObject({ severity: 'temporary' });
    await store.put(encodeCommitment(comm), input);
    expect(await drain(r)).toEqual([toHex(input)]);
  });
});
