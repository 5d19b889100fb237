// The HTTP engine against a stub authenticated endpoint: the JWT is required, Engine API versions follow the fork
// schedule, and L2 blocks (deposits included) are read back into references, payloads and system configs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { createAuthRpcServer } from '../../../../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { toHex } from '../../../../../src/main/node/derive/types.js';
import { HttpEngine } from '../../../../../src/main/node/engine/http.js';
import { decodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { BATCHER, l1Hash, l1InfoTx, testConfig } from './fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const cfg = testConfig({ fjord_time: 0, granite_time: 0, holocene_time: 0, isthmus_time: 2000 });
const secret = new Uint8Array(32).fill(7);
const z = (n: number) => `0x${'00'.repeat(n)}`;
const h32 = (b: string) => `0x${b.repeat(32)}`;
const deposit = decodeDepositTx(l1InfoTx(3, 1));

const block = {
  hash: h32('ab'),
  parentHash: h32('cd'),
  sha3Uncles: h32('1d'),
  miner: '0x4200000000000000000000000000000000000011',
  stateRoot: h32('55'),
  transactionsRoot: h32('66'),
  receiptsRoot: h32('77'),
  logsBloom: z(256),
  difficulty: '0x0',
  number: '0x7',
  gasLimit: '0x1c9c380',
  gasUsed: '0x0',
  timestamp: '0x3f6',
  extraData: '0x000000003200000006',
  mixHash: h32('88'),
  nonce: z(8),
  baseFeePerGas: '0x1',
  withdrawalsRoot: h32('99'),
  blobGasUsed: '0x0',
  excessBlobGas: '0x0',
  parentBeaconBlockRoot: h32('aa'),
  withdrawals: [],
  transactions: [
    {
      type: '0x7e',
      sourceHash: toHex(deposit.sourceHash),
      from: toHex(deposit.from),
      to: toHex(deposit.to as Uint8Array),
      mint: '0x0',
      value: '0x0',
      gas: `0x${deposit.gasLimit.toString(16)}`,
      isSystemTx: false,
      input: toHex(deposit.data),
      hash: h32('01'),
    },
  ],
};

describe('HttpEngine', () => {
  const calls: Array<{ method: string; params: unknown[] }> = [];
  const registry = new RpcRegistry();
  registry.registerNamespace('eth', {
    getBlockByNumber: (params) => {
      calls.push({ method: 'eth_getBlockByNumber', params });
      return params[0] === '0x7' || params[0] === 'latest' ? block : null;
    },
  });
  const fcu = (method: string) => (params: unknown[]) => {
    calls.push({ method, params });
    return {
      payloadStatus: { status: 'VALID', latestValidHash: h32('ab'), validationError: null },
      payloadId: '0x0102030405060708',
    };
  };
  registry.registerNamespace(
    'engine',
    { forkchoiceUpdatedV3: fcu('engine_forkchoiceUpdatedV3'), forkchoiceUpdatedV2: fcu('engine_forkchoiceUpdatedV2') },
    { authenticated: true },
  );
  const server = createAuthRpcServer({ host: '127.0.0.1', port: 0, jwtSecret: secret }, { registry, logger });
  let engine: HttpEngine;
  let wrongKey: HttpEngine;
  beforeAll(async () => {
    const addr = await server.start();
    const opts = { url: addr.url, timeoutMs: 2000, kind: 'geth' as const, fetchWithdrawalRootFromState: false };
    engine = new HttpEngine(cfg, { ...opts, jwtSecret: secret }, { logger });
    wrongKey = new HttpEngine(cfg, { ...opts, jwtSecret: new Uint8Array(32).fill(8) }, { logger });
  });
  afterAll(async () => {
    await engine.close();
    await wrongKey.close();
    await server.stop();
  });

  it('reads a block into its reference, payload (deposit re-encoded byte for byte) and system config', async () => {
    const ref = await engine.l2BlockRefByNumber(7);
    expect(ref).toMatchObject({
      number: 7,
      timestamp: 1014,
      l1origin: { hash: l1Hash(3), number: 3 },
      sequenceNumber: 1,
    });
    const p = await engine.payloadByNumber(7);
    expect(toHex(p.payload.transactions[0] as Uint8Array)).toBe(toHex(l1InfoTx(3, 1)));
    expect(toHex(p.parentBeaconBlockRoot as Uint8Array)).toBe(h32('aa'));
    const sc = await engine.systemConfigByL2Hash(h32('ab')).catch(() => undefined);
    expect(sc).toBeUndefined(); // the stub has no eth_getBlockByHash: answered as an error, not a crash
    await expect(engine.l2BlockRefByNumber(8)).rejects.toMatchObject({ code: 'ENGINE_NOT_FOUND' });
    void BATCHER;
  });

  it('takes the withdrawal root from the header after Isthmus, from eth_getProof before (or when asked to)', async () => {
    const isthmus = testConfig({ fjord_time: 0, granite_time: 0, holocene_time: 0, isthmus_time: 0 });
    const url = server.address?.url as string;
    const opts = { url, jwtSecret: secret, timeoutMs: 2000, kind: 'geth' as const };
    const fromHeader = new HttpEngine(isthmus, { ...opts, fetchWithdrawalRootFromState: false }, { logger });
    const fromState = new HttpEngine(isthmus, { ...opts, fetchWithdrawalRootFromState: true }, { logger });
    const out = await fromHeader.outputV0AtBlock(7);
    expect(toHex(out.messagePasserStorageRoot)).toBe(h32('99'));
    expect(toHex(out.stateRoot)).toBe(h32('55'));
    expect(toHex(out.blockHash)).toBe(h32('ab'));
    await expect(fromState.outputV0AtBlock(7)).rejects.toThrow(/eth_getProof/);
    await expect(engine.outputV0AtBlock(7)).rejects.toThrow(/eth_getProof/);
    await fromHeader.close();
    await fromState.close();
  });

  it('uses forkchoiceUpdated V3 from Ecotone, with and without attributes, and sends the OP attribute fields', async () => {
    const state = {
      headBlockHash: new Uint8Array(32),
      safeBlockHash: new Uint8Array(32),
      finalizedBlockHash: new Uint8Array(32),
    };
    calls.length = 0;
    await engine.forkchoiceUpdated(state);
    const r = await engine.forkchoiceUpdated(state, {
      timestamp: 1016n,
      prevRandao: new Uint8Array(32),
      suggestedFeeRecipient: new Uint8Array(20),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32),
      transactions: [],
      noTxPool: true,
      gasLimit: 30_000_000n,
      eip1559Params: new Uint8Array(8),
    });
    expect(calls.map((c) => c.method)).toEqual(['engine_forkchoiceUpdatedV3', 'engine_forkchoiceUpdatedV3']);
    expect((calls[1]?.params[1] as Record<string, unknown> | undefined)?.gasLimit).toBe('0x1c9c380');
    expect(toHex(r.payloadId as Uint8Array)).toBe('0x0102030405060708');
  });

  it('is refused without the right JWT secret', async () => {
    await expect(wrongKey.l2BlockRefByLabel('latest')).rejects.toMatchObject({ code: 'ENGINE_RPC' });
  });
});
