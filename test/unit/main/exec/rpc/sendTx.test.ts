// eth_sendRawTransaction and the pool-aware eth methods over the execution-apis chain: the fixtures' transactions
// are accepted (blob transaction with its sidecar included), and each kind of invalid transaction is refused with
// geth's code and message.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { dbPoolChain } from '../../../../../src/main/exec/chain/poolChain.js';
import { registerExecApis } from '../../../../../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../../../../../src/main/exec/rpc/backend.js';
import { FilterSystem } from '../../../../../src/main/exec/rpc/filters.js';
import { checkTxFee } from '../../../../../src/main/exec/rpc/sendTx.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { buildTestChain, EXECUTION_APIS, inprocCaller, rpcError, type TestChain } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const CHAIN_ID = 3503995874084926;
// A fresh key (no funds on the test chain) and the chain's funded fixture sender are both needed.
const POOR = privateKeyToAccount(`0x${'11'.repeat(32)}`);

let chain: TestChain;
let pool: TernTxPool;
let filters: FilterSystem;
let call: (method: string, params?: unknown[]) => Promise<unknown>;

function fixtureTx(name: string): string {
  const line = readFileSync(join(EXECUTION_APIS, 'eth_sendRawTransaction', name), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('>> ')) as string;
  return (JSON.parse(line.slice(3)) as { params: [string] }).params[0];
}

async function setup(opts: { allowUnprotected?: boolean; txFeeCap?: number } = {}) {
  const backend = new ExecRpcBackend(chain.db, chain.store.config(), {}, logger);
  const p = await TernTxPool.open(dbPoolChain(chain.db, chain.store.config()), {}, { logger });
  const f = new FilterSystem(backend, p, headEvents(chain.db));
  const registry = registerExecApis(new RpcRegistry(), backend, {
    pool: p,
    heads: headEvents(chain.db),
    filters: f,
    sendTx: { allowUnprotected: opts.allowUnprotected ?? false, txFeeCap: opts.txFeeCap ?? 1 },
  });
  const c = inprocCaller(registry);
  return { pool: p, filters: f, call: c };
}

beforeAll(async () => {
  chain = await buildTestChain(logger);
  ({ pool, filters, call } = await setup());
}, 120_000);

afterAll(async () => {
  filters.close();
  await pool.close();
  await chain.db.close();
});

const sign = (tx: Record<string, unknown>, key = POOR) =>
  key.signTransaction({ chainId: CHAIN_ID, type: 'eip1559', ...tx } as Parameters<typeof key.signTransaction>[0]);

describe('eth_sendRawTransaction', () => {
  it('accepts every execution-apis fixture and returns its hash', async () => {
    const dir = join(EXECUTION_APIS, 'eth_sendRawTransaction');
    const files = readdirSync(dir).sort();
    for (const f of files) {
      const expected = JSON.parse(
        (
          readFileSync(join(dir, f), 'utf8')
            .split('\n')
            .find((l) => l.startsWith('<< ')) as string
        ).slice(3),
      ) as { result: string };
      expect(await call('eth_sendRawTransaction', [fixtureTx(f)]), f).toBe(expected.result);
    }
    // Nonces 0..3 from one sender are pending, the blob transaction is its own account's.
    const status = (await call('txpool_status')) as { pending: string; queued: string };
    expect(status).toEqual({ pending: '0x5', queued: '0x0' });
    const sender = '0x0c2c51a0990aee1d73c1228de158688341557508';
    expect(await call('eth_getTransactionCount', [sender, 'pending'])).toBe('0x4');
    expect(await call('eth_getTransactionCount', [sender, 'latest'])).toBe('0x0');
    const legacy = (await call('eth_getTransactionByHash', [
      '0x7f256faa4161b9675df9e6c8c0cddb47bc02da482881c9b0604446104e1e2274',
    ])) as Record<string, unknown>;
    expect(legacy.blockHash).toBeNull();
    expect(legacy.from).toBe(sender);
    // The raw form of a pooled blob transaction carries its sidecar again.
    const blobRaw = fixtureTx('send-blob-tx.io');
    const hash = '0x3f1f6834e904b0062d403f0ab51aa5541fdc5c17b23f52351f0d6f9f9e525648';
    expect(await call('eth_getRawTransactionByHash', [hash])).toBe(blobRaw);
    expect(await rpcError(call('eth_sendRawTransaction', [fixtureTx('send-legacy-transaction.io')]))).toEqual({
      code: -32000,
      message: 'already known',
    });
  });

  it('refuses malformed input, bad signatures and wrong chains with -32000', async () => {
    expect((await rpcError(call('eth_sendRawTransaction', ['0x']))).message).toBe('typed transaction too short');
    expect((await rpcError(call('eth_sendRawTransaction', ['0x02c0']))).code).toBe(-32000);
    const raw = await sign({
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 1n,
      to: POOR.address,
    });
    // Flip a byte of s: the recovered key changes or recovery fails; either way not the signer's transaction.
    const bad = `${raw.slice(0, -4)}${raw.slice(-4, -2) === '00' ? '01' : '00'}${raw.slice(-2)}`;
    const e = await rpcError(call('eth_sendRawTransaction', [bad]));
    expect(e.code).toBe(-32000);
    expect(e.message).toMatch(/invalid sender|insufficient funds/);
    const other = await POOR.signTransaction({
      chainId: 1,
      type: 'eip1559',
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 1n,
      to: POOR.address,
    });
    expect((await rpcError(call('eth_sendRawTransaction', [other]))).message).toMatch(
      /^invalid sender: invalid chain id/,
    );
  });

  it('refuses insufficient funds, over the fee cap, a fee cap below the base fee and unprotected transactions', async () => {
    const raw = await sign({
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 1n,
      to: POOR.address,
    });
    const e = await rpcError(call('eth_sendRawTransaction', [raw]));
    expect(e).toEqual({
      code: -32000,
      message: expect.stringMatching(
        /^insufficient funds for gas \* price \+ value: balance 0, tx cost 21000000000000/,
      ),
    });
    const costly = await sign({
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10n ** 14n,
      maxPriorityFeePerGas: 1n,
      to: POOR.address,
    });
    expect(await rpcError(call('eth_sendRawTransaction', [costly]))).toEqual({
      code: -32000,
      message: 'tx fee (2.10 ether) exceeds the configured cap (1.00 ether)',
    });
    const head = (await call('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: string };
    const baseFee = BigInt(head.baseFeePerGas);
    const cheap = await sign({
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: baseFee - 1n,
      maxPriorityFeePerGas: 0n,
      to: POOR.address,
    });
    expect(await rpcError(call('eth_sendRawTransaction', [cheap]))).toEqual({
      code: -32000,
      message: expect.stringMatching(
        /^max fee per gas less than block base fee: address 0x[0-9a-f]{40}, maxFeePerGas: \d+, baseFee: \d+$/,
      ),
    });
    const unprotected = await POOR.signTransaction({
      type: 'legacy',
      nonce: 0,
      gas: 21000n,
      gasPrice: 10n ** 9n,
      to: POOR.address,
    });
    expect(await rpcError(call('eth_sendRawTransaction', [unprotected]))).toEqual({
      code: -32000,
      message: 'only replay-protected (EIP-155) transactions allowed over RPC',
    });
  });

  it('checkTxFee follows geth (0 disables, fee in ether with two decimals)', () => {
    expect(() => checkTxFee(10n ** 18n, 21000n, 0)).not.toThrow();
    expect(() => checkTxFee(10n ** 13n, 100_000n, 1)).not.toThrow();
    expect(() => checkTxFee(10n ** 13n, 100_001n, 1)).toThrow(/tx fee \(1.00 ether\) exceeds/);
  });

  it('accepts unprotected transactions with --rpc.allow-unprotected-txs (then the pool checks funds)', async () => {
    const s = await setup({ allowUnprotected: true });
    const unprotected = await POOR.signTransaction({
      type: 'legacy',
      nonce: 0,
      gas: 21000n,
      gasPrice: 10n ** 9n,
      to: POOR.address,
    });
    expect((await rpcError(s.call('eth_sendRawTransaction', [unprotected]))).message).toMatch(/^insufficient funds/);
    s.filters.close();
    await s.pool.close();
  });
});
