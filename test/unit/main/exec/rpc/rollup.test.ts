// The rollup flags' eth methods over the execution-apis chain, against stub JSON-RPC servers standing in for the
// sequencer, the legacy (historical) node and the supervisor.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { type CallContext, RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { dbPoolChain } from '../../../../../src/main/exec/chain/poolChain.js';
import type { RollupOptions } from '../../../../../src/main/exec/rollup/options.js';
import { rollupDefaults } from '../../../../../src/main/exec/rollup/options.js';
import { createRollupServices, type RollupServices } from '../../../../../src/main/exec/rollup/services.js';
import { registerExecApis } from '../../../../../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../../../../../src/main/exec/rpc/backend.js';
import { FilterSystem } from '../../../../../src/main/exec/rpc/filters.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { buildTestChain, EXECUTION_APIS, inprocCaller, rpcError, type TestChain } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const CHAIN_ID = 3503995874084926;
const POOR = privateKeyToAccount(`0x${'11'.repeat(32)}`);

interface Stub {
  url: string;
  calls: Array<{ method: string; params: unknown[] }>;
  answer: (method: string, params: unknown[]) => { result?: unknown; error?: { code: number; message: string } };
  server: Server;
}

async function stub(): Promise<Stub> {
  const s: Stub = { url: '', calls: [], answer: () => ({ result: null }), server: createServer() };
  s.server.on('request', (req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      s.calls.push({ method: msg.method, params: msg.params });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...s.answer(msg.method, msg.params) }));
    });
  });
  await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
  s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
  return s;
}

function fixtureTx(name: string): string {
  const line = readFileSync(join(EXECUTION_APIS, 'eth_sendRawTransaction', name), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('>> ')) as string;
  return (JSON.parse(line.slice(3)) as { params: [string] }).params[0];
}

let chain: TestChain;
let sequencer: Stub;
let legacy: Stub;
const open: Array<{ pool: TernTxPool; filters: FilterSystem; rollup: RollupServices }> = [];

async function node(opts: Partial<RollupOptions>) {
  const backend = new ExecRpcBackend(chain.db, chain.store.config(), {}, logger);
  const pool = await TernTxPool.open(dbPoolChain(chain.db, chain.store.config()), {}, { logger });
  const filters = new FilterSystem(backend, pool, headEvents(chain.db));
  const rollup = createRollupServices({ ...rollupDefaults, ...opts }, { backend, pool, store: chain.store, logger });
  open.push({ pool, filters, rollup });
  const registry = registerExecApis(new RpcRegistry(), backend, {
    pool,
    heads: headEvents(chain.db),
    filters,
    rollup: rollup.eth,
  });
  const call = inprocCaller(registry);
  return { call, pool, rollup };
}

beforeAll(async () => {
  chain = await buildTestChain(logger);
  sequencer = await stub();
  legacy = await stub();
}, 120_000);

afterEach(async () => {
  for (const o of open.splice(0)) {
    o.filters.close();
    await o.pool.close();
    await o.rollup.close();
  }
  sequencer.calls.length = 0;
  legacy.calls.length = 0;
});

afterAll(async () => {
  await chain.db.close();
  sequencer.server.close();
  legacy.server.close();
});

const LEGACY_TX = '0x7f256faa4161b9675df9e6c8c0cddb47bc02da482881c9b0604446104e1e2274';

describe('--rollup.sequencerhttp', () => {
  it('forwards eth_sendRawTransaction and keeps it out of the pool unless admission is enabled', async () => {
    sequencer.answer = () => ({ result: LEGACY_TX });
    const raw = fixtureTx('send-legacy-transaction.io');
    const a = await node({ sequencerHttp: sequencer.url, disableTxPoolAdmission: true });
    expect(await a.call('eth_sendRawTransaction', [raw])).toBe(LEGACY_TX);
    expect(sequencer.calls).toEqual([{ method: 'eth_sendRawTransaction', params: [raw] }]);
    expect(a.pool.status().pending).toBe(0);

    const b = await node({ sequencerHttp: sequencer.url, disableTxPoolAdmission: false });
    expect(await b.call('eth_sendRawTransaction', [raw])).toBe(LEGACY_TX);
    expect(b.pool.status().pending).toBe(1);
  });

  it('answers with the sequencer’s error, code included, and adds nothing locally', async () => {
    sequencer.answer = () => ({ error: { code: -32010, message: 'sequencer says no' } });
    const a = await node({ sequencerHttp: sequencer.url, disableTxPoolAdmission: false });
    expect(await rpcError(a.call('eth_sendRawTransaction', [fixtureTx('send-legacy-transaction.io')]))).toEqual({
      code: -32010,
      message: 'sequencer says no',
    });
    expect(a.pool.status().pending).toBe(0);
  });

  it('still applies the RPC fee cap before forwarding', async () => {
    const a = await node({ sequencerHttp: sequencer.url, disableTxPoolAdmission: true });
    const raw = await POOR.signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10n ** 15n,
      maxPriorityFeePerGas: 1n,
      to: POOR.address,
    });
    expect((await rpcError(a.call('eth_sendRawTransaction', [raw]))).message).toMatch(/exceeds the configured cap/);
    expect(sequencer.calls).toEqual([]);
  });
});

describe('eth_sendRawTransactionConditional', () => {
  const raw = () => fixtureTx('send-legacy-transaction.io');

  it('is served only with --rollup.sequencertxconditionalenabled', async () => {
    const a = await node({});
    await expect(a.call('eth_sendRawTransactionConditional', [raw(), {}])).rejects.toThrow(/no method/);
  });

  it('checks cost, bounds, header and state with op-geth’s codes and messages', async () => {
    const a = await node({ conditionalEnabled: true });
    const many: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) many[`0x${i.toString(16).padStart(64, '0')}`] = `0x${'00'.repeat(32)}`;
    const addr = '0x0000000000000000000000000000000000000001';
    expect(
      await rpcError(a.call('eth_sendRawTransactionConditional', [raw(), { knownAccounts: { [addr]: many } }])),
    ).toEqual({
      code: -32005,
      message: 'conditional cost, 1001, exceeded max: 1000',
    });
    expect(
      await rpcError(
        a.call('eth_sendRawTransactionConditional', [raw(), { blockNumberMin: '0x5', blockNumberMax: '0x4' }]),
      ),
    ).toEqual({
      code: -32003,
      message: 'failed conditional validation: block number minimum constraint must be less than the maximum',
    });
    expect(await rpcError(a.call('eth_sendRawTransactionConditional', [raw(), { blockNumberMin: '0x64' }]))).toEqual({
      code: -32003,
      message: 'failed header check: failed block number minimum constraint',
    });
    expect(await rpcError(a.call('eth_sendRawTransactionConditional', [raw(), { timestampMax: '0x1' }]))).toEqual({
      code: -32003,
      message: 'failed header check: failed timestamp maximum constraint',
    });
    const root = `0x${'ab'.repeat(32)}`;
    expect(
      await rpcError(a.call('eth_sendRawTransactionConditional', [raw(), { knownAccounts: { [addr]: root } }])),
    ).toEqual({
      code: -32003,
      message: `failed state check: failed account storage root constraint. Got 0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421, Expected ${root}`,
    });
    expect(a.pool.status().pending).toBe(0);
  });

  it('pools a transaction whose conditional holds, and remembers the conditional', async () => {
    const a = await node({ conditionalEnabled: true });
    const empty = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
    const cond = {
      knownAccounts: { '0x00000000000000000000000000000000000000aa': empty },
      blockNumberMin: '0x1',
      blockNumberMax: '0x14',
    };
    expect(await a.call('eth_sendRawTransactionConditional', [raw(), cond])).toBe(LEGACY_TX);
    expect(a.pool.status().pending).toBe(1);
    expect(a.rollup.conditionals?.get(Buffer.from(LEGACY_TX.slice(2), 'hex'))?.blockNumberMax).toBe(20n);
  });

  it('forwards to the sequencer with the conditional when one is set', async () => {
    sequencer.answer = () => ({ result: LEGACY_TX });
    const a = await node({ conditionalEnabled: true, sequencerHttp: sequencer.url, disableTxPoolAdmission: true });
    expect(await a.call('eth_sendRawTransactionConditional', [raw(), { timestampMin: '0x1' }])).toBe(LEGACY_TX);
    expect(sequencer.calls).toEqual([
      { method: 'eth_sendRawTransactionConditional', params: [raw(), { knownAccounts: {}, timestampMin: '0x1' }] },
    ]);
  });
});

describe('--rollup.historicalrpc', () => {
  // The execution-apis chain starts at block 0; these tests treat blocks below 5 as another node's history.
  const withBoundary = async (opts: Partial<RollupOptions>) => {
    const n = await node(opts);
    const parts = n.rollup.eth;
    if (!parts) throw new Error('no rollup parts');
    return n;
  };

  it('passes through when the chain holds its whole history', async () => {
    const a = await withBoundary({ historicalRpc: legacy.url });
    const addr = '0x0c2c51a0990aee1d73c1228de158688341557508';
    await a.call('eth_getBalance', [addr, '0x1']);
    expect(legacy.calls).toEqual([]);
  });

  it('forwards pre-history state reads, wraps the legacy node’s errors, and says when no fallback exists', async () => {
    const { historicalEthMethods } = await import('../../../../../src/main/exec/rollup/historical.js');
    const local = {
      getBalance: () => '0xlocal',
      getBlockByNumber: () => null,
      getTransactionReceipt: () => null,
    };
    const boundary = { firstLocal: 5n, numberOf: (h: string) => (h === `0x${'11'.repeat(32)}` ? 7n : undefined) };
    const client = {
      call: async (method: string, params: readonly unknown[]) => {
        legacy.calls.push({ method, params: [...params] });
        if (method === 'eth_getTransactionReceipt') throw new Error('legacy node down');
        return '0xlegacy';
      },
    };
    const ctx = { signal: new AbortController().signal } as CallContext;
    const m = historicalEthMethods(local, boundary, client);
    const addr = '0x0c2c51a0990aee1d73c1228de158688341557508';
    expect(await m.getBalance?.([addr, '0x3'], ctx)).toBe('0xlegacy');
    expect(await m.getBalance?.([addr, '0x5'], ctx)).toBe('0xlocal');
    expect(await m.getBalance?.([addr, 'latest'], ctx)).toBe('0xlocal');
    expect(await m.getBalance?.([addr, { blockHash: `0x${'11'.repeat(32)}` }], ctx)).toBe('0xlocal');
    expect(await m.getBalance?.([addr, { blockHash: `0x${'22'.repeat(32)}` }], ctx)).toBe('0xlegacy');
    expect(await m.getBalance?.([addr, 'earliest'], ctx)).toBe('0xlegacy');
    expect(await m.getBlockByNumber?.(['0x2', false], ctx)).toBe('0xlegacy');
    expect(
      await rpcError(Promise.resolve().then(() => m.getTransactionReceipt?.([`0x${'33'.repeat(32)}`], ctx))),
    ).toEqual({
      code: -32000,
      message: 'historical backend error: legacy node down',
    });
    const none = historicalEthMethods(local, boundary, undefined);
    expect(await rpcError(Promise.resolve().then(() => none.getBalance?.([addr, '0x3'], ctx)))).toEqual({
      code: -32801,
      message: 'no historical RPC is available for this historical (pre-bedrock) execution request',
    });
    expect(await none.getBlockByNumber?.(['0x2', false], ctx)).toBeNull();
  });

  it('talks to the legacy node over HTTP with the caller’s params', async () => {
    legacy.answer = () => ({ result: '0x2a' });
    const { RpcClient } = await import('../../../../../src/main/common/rpc/client.js');
    const { historicalEthMethods } = await import('../../../../../src/main/exec/rollup/historical.js');
    const c = new RpcClient({ url: legacy.url, timeoutMs: 2000 });
    const m = historicalEthMethods(
      { getCode: () => '0x' },
      { firstLocal: 105235063n, numberOf: () => undefined },
      { call: (method, params, signal) => c.call(method, params, { signal }) },
    );
    const ctx = { signal: new AbortController().signal } as CallContext;
    expect(await m.getCode?.(['0x4200000000000000000000000000000000000016', '0x1'], ctx)).toBe('0x2a');
    expect(legacy.calls).toEqual([
      { method: 'eth_getCode', params: ['0x4200000000000000000000000000000000000016', '0x1'] },
    ]);
    await c.close();
  });
});
