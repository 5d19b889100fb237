// --rollup.computependingblock: with it, the `pending` tag is a block built from the pool on top of the head (the
// pooled transaction is in it, balances and nonces reflect it, it is never written); without it, pending = latest.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { type CallContext, RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { BlockBuilder } from '../../../../../src/main/exec/chain/builder.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { PendingBlocks } from '../../../../../src/main/exec/chain/pending.js';
import { dbPoolChain } from '../../../../../src/main/exec/chain/poolChain.js';
import { registerExecApis } from '../../../../../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../../../../../src/main/exec/rpc/backend.js';
import { FilterSystem } from '../../../../../src/main/exec/rpc/filters.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import type { StateDiff } from '../../../../../src/main/exec/state/interface.js';
import { PendingStateReader } from '../../../../../src/main/exec/state/pendingReader.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { buildTestChain, EXECUTION_APIS, type TestChain } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const SENDER = '0x0c2c51a0990aee1d73c1228de158688341557508';

type Call = (method: string, params?: unknown[]) => Promise<unknown>;

function fixtureTx(name: string): string {
  const line = readFileSync(join(EXECUTION_APIS, 'eth_sendRawTransaction', name), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('>> ')) as string;
  return (JSON.parse(line.slice(3)) as { params: [string] }).params[0];
}

let chain: TestChain;
let pool: TernTxPool;
let filters: FilterSystem;
let pending: PendingBlocks;
let withFlag: Call;
let without: Call;
let builds = 0;

function rpc(backend: ExecRpcBackend): Call {
  const registry = registerExecApis(new RpcRegistry(), backend, {
    pool,
    heads: headEvents(chain.db),
    filters,
    sendTx: { allowUnprotected: true, txFeeCap: 0 },
  });
  return async (method, params = []) => {
    const handler = registry.lookupMethod(method);
    if (!handler) throw new Error(`no method ${method}`);
    return handler(params, { method, signal: new AbortController().signal } as unknown as CallContext);
  };
}

beforeAll(async () => {
  chain = await buildTestChain(logger);
  const config = chain.store.config();
  pool = await TernTxPool.open(dbPoolChain(chain.db, config), {}, { logger });
  const plain = new ExecRpcBackend(chain.db, config, {}, logger);
  filters = new FilterSystem(plain, pool, headEvents(chain.db));
  const computing = new ExecRpcBackend(chain.db, config, {}, logger);
  const builder = await BlockBuilder.create(chain.store, new InlineSenderRecovery(), { logger, pool });
  const build = builder.build.bind(builder);
  builder.build = (...args) => {
    builds++;
    return build(...args);
  };
  pending = new PendingBlocks(builder, pool, { minRebuildMs: 0 }, logger);
  computing.pendingBlocks = pending;
  withFlag = rpc(computing);
  without = rpc(plain);
}, 120_000);

afterAll(async () => {
  pending.close();
  filters.close();
  await pool.close();
  await chain.db.close();
});

// The test chain is not an OP chain: as geth off-rollup, the pending block's JSON has no hash (null).
type BlockJson = { number: string; hash: string | null; transactions: string[]; parentHash: string; stateRoot: string };

describe('--rollup.computependingblock', () => {
  it('shows a pooled transaction in the pending block and state, never persisting it', async () => {
    const latest = (await without('eth_getBlockByNumber', ['latest', false])) as BlockJson;
    const balanceBefore = BigInt((await withFlag('eth_getBalance', [SENDER, 'latest'])) as string);
    // Nothing pooled yet: the pending block is an empty child of the head.
    const empty = (await withFlag('eth_getBlockByNumber', ['pending', false])) as BlockJson;
    expect(empty.parentHash).toBe(latest.hash);
    expect(empty.transactions).toEqual([]);
    expect(BigInt((await withFlag('eth_getBalance', [SENDER, 'pending'])) as string)).toBe(balanceBefore);

    const hash = (await withFlag('eth_sendRawTransaction', [fixtureTx('send-legacy-transaction.io')])) as string;
    const block = (await withFlag('eth_getBlockByNumber', ['pending', false])) as BlockJson;
    expect(BigInt(block.number)).toBe(BigInt(latest.number) + 1n);
    expect(block.parentHash).toBe(latest.hash);
    expect(block.transactions).toEqual([hash]);
    expect(await withFlag('eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x1');
    const full = (await withFlag('eth_getBlockByNumber', ['pending', true])) as { transactions: { hash: string }[] };
    expect(full.transactions.map((t) => t.hash)).toEqual([hash]);
    expect(await withFlag('eth_getTransactionCount', [SENDER, 'pending'])).toBe('0x1');
    expect(await withFlag('eth_getTransactionCount', [SENDER, 'latest'])).toBe('0x0');
    const pendingBalance = BigInt((await withFlag('eth_getBalance', [SENDER, 'pending'])) as string);
    expect(pendingBalance).toBeLessThan(balanceBefore);
    expect(BigInt((await withFlag('eth_getBalance', [SENDER, 'latest'])) as string)).toBe(balanceBefore);
    // eth_call and eth_estimateGas run on the pending state (the pending balance is what BALANCE-free calls see
    // through the sender's funds check: a value of the whole pre-balance no longer fits).
    const value = `0x${balanceBefore.toString(16)}`;
    await expect(withFlag('eth_call', [{ from: SENDER, to: SENDER, value, gasPrice: '0x0' }, 'latest'])).resolves.toBe(
      '0x',
    );
    await expect(withFlag('eth_estimateGas', [{ from: SENDER, to: SENDER, value }, 'pending'])).rejects.toThrow(
      /insufficient funds/,
    );
    await expect(withFlag('eth_estimateGas', [{ from: SENDER, to: SENDER, value }, 'latest'])).resolves.toBeDefined();

    // Cached while head and pool stay the same.
    const n = builds;
    expect(await withFlag('eth_getBlockByNumber', ['pending', false])).toEqual(block);
    expect(builds).toBe(n);
    expect(block.stateRoot).not.toBe(latest.stateRoot);

    // Never persisted: the head, the stored blocks and `latest` are unchanged.
    expect(await withFlag('eth_getBlockByNumber', [block.number, false])).toBeNull();
    expect(((await withFlag('eth_getBlockByNumber', ['latest', false])) as BlockJson).hash).toBe(latest.hash);
  });

  it('answers pending as latest without the flag', async () => {
    const latest = (await without('eth_getBlockByNumber', ['latest', false])) as BlockJson;
    const p = (await without('eth_getBlockByNumber', ['pending', false])) as BlockJson;
    expect(p.number).toBe(latest.number);
    expect(p.stateRoot).toBe(latest.stateRoot);
    expect(p.transactions).toEqual(latest.transactions);
    expect(await without('eth_getBlockTransactionCountByNumber', ['pending'])).toBe(
      await without('eth_getBlockTransactionCountByNumber', ['latest']),
    );
    expect(await without('eth_getBalance', [SENDER, 'pending'])).toBe(
      await without('eth_getBalance', [SENDER, 'latest']),
    );
    // The pool still answers the pending nonce (geth's GetPoolNonce), flag or not.
    expect(await without('eth_getTransactionCount', [SENDER, 'pending'])).toBe('0x1');
  });
});

describe('PendingStateReader', () => {
  it('reads changed accounts, slots and code from the diff and the rest from the parent', () => {
    const a = new Uint8Array(20).fill(1);
    const b = new Uint8Array(20).fill(2);
    const gone = new Uint8Array(20).fill(3);
    const slot = new Uint8Array(32).fill(4);
    const other = new Uint8Array(32).fill(5);
    const code = new Uint8Array(32).fill(9);
    const hx = (u: Uint8Array) => `0x${Buffer.from(u).toString('hex')}`;
    const base = {
      getAccount: (x: Uint8Array) => ({ nonce: 1n, balance: BigInt(x[0] as number), codeHash: new Uint8Array(32) }),
      getStorage: () => 7n,
      getCode: () => new Uint8Array([1]),
    };
    const diff: StateDiff = {
      accounts: new Map([
        [
          hx(a),
          { nonce: 2n, balance: 100n, codeHash: code, storage: new Map([[hx(slot), 8n]]), storageCleared: false },
        ],
        [hx(b), { nonce: 0n, balance: 0n, codeHash: code, storage: new Map(), storageCleared: true }],
        [hx(gone), null],
      ]),
      codes: new Map([[hx(code), new Uint8Array([2, 3])]]),
    };
    const r = new PendingStateReader(base, diff);
    expect(r.getAccount(a)).toMatchObject({ nonce: 2n, balance: 100n });
    expect(r.getAccount(new Uint8Array(20).fill(6))?.balance).toBe(6n);
    expect(r.getAccount(gone)).toBeUndefined();
    expect(r.getStorage(a, slot)).toBe(8n);
    expect(r.getStorage(a, other)).toBe(7n);
    expect(r.getStorage(b, other)).toBe(0n);
    expect(r.getStorage(gone, slot)).toBe(0n);
    expect(r.getCode(code)).toEqual(new Uint8Array([2, 3]));
    expect(r.getCode(new Uint8Array(32))).toEqual(new Uint8Array([1]));
  });
});
