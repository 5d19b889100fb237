// eth_accounts, eth_sign, eth_signTransaction and eth_sendTransaction over a dev chain and a real pool: geth's
// defaults (pending nonce, estimated gas, oracle fees, chain id), its type choice, its errors for locked and
// unknown accounts and incomplete eth_signTransaction requests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recoverMessageAddress, recoverTransactionAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { AccountManager } from '../../../../../src/main/exec/accounts/manager.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { dbPoolChain } from '../../../../../src/main/exec/chain/poolChain.js';
import { type Database, openDatabase } from '../../../../../src/main/exec/db/open.js';
import { devGenesis } from '../../../../../src/main/exec/dev/genesis.js';
import { registerExecApis } from '../../../../../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../../../../../src/main/exec/rpc/backend.js';
import { FilterSystem } from '../../../../../src/main/exec/rpc/filters.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import { inprocCaller, rpcError } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const DEV_KEY = `0x${'42'.repeat(32)}` as const;
const DEV = privateKeyToAccount(DEV_KEY);
const TO = `0x${'11'.repeat(20)}`;
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

let dir: string;
let db: Database;
let pool: TernTxPool;
let filters: FilterSystem;
let locked: string;
let call: (method: string, params?: unknown[]) => Promise<unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-accounts-'));
  db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db);
  await store.initGenesis(devGenesis({ developer: DEV.address, gasLimit: 30_000_000n, timestamp: 1_700_000_000n }));
  const manager = new AccountManager({ keystoreDir: join(dir, 'keystore'), lightKdf: true });
  locked = manager.keystore.add('secret').address;
  manager.addUnlocked(DEV.address, bytes(DEV_KEY));
  const backend = new ExecRpcBackend(db, store.config(), {}, logger);
  pool = await TernTxPool.open(dbPoolChain(db, store.config()), {}, { logger });
  filters = new FilterSystem(backend, pool, headEvents(db));
  const registry = registerExecApis(new RpcRegistry(), backend, {
    pool,
    heads: headEvents(db),
    filters,
    accounts: manager,
  });
  call = inprocCaller(registry);
}, 60_000);

afterAll(async () => {
  filters.close();
  await pool.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const pooled = async (hash: unknown) => {
  const raw = (await call('eth_getRawTransactionByHash', [hash])) as string;
  return { raw, tx: decodeTransaction(bytes(raw)) };
};

describe('account RPC', () => {
  it('eth_accounts lists keystore accounts and the unlocked dev key', async () => {
    expect(await call('eth_accounts')).toEqual([locked, DEV.address.toLowerCase()]);
  });

  it('eth_sign signs the EIP-191 message hash', async () => {
    const sig = (await call('eth_sign', [DEV.address, '0xdeadbeef'])) as `0x${string}`;
    expect(sig).toMatch(/^0x[0-9a-f]{130}$/);
    expect(['1b', '1c']).toContain(sig.slice(-2));
    expect(await recoverMessageAddress({ message: { raw: '0xdeadbeef' }, signature: sig })).toBe(DEV.address);
    expect(await rpcError(call('eth_sign', [locked, '0x00']))).toEqual({
      code: -32000,
      message: 'authentication needed: password or unlock',
    });
    expect((await rpcError(call('eth_sign', [TO, '0x00']))).message).toBe('unknown account');
  });

  it('eth_sendTransaction fills nonce, gas, fees and chain id (EIP-1559 by default)', async () => {
    const hash = await call('eth_sendTransaction', [{ from: DEV.address, to: TO, value: '0x5' }]);
    const { raw, tx } = await pooled(hash);
    expect(tx.type).toBe(2);
    expect(tx.nonce).toBe(0n);
    expect(tx.gasLimit).toBe(21_000n);
    expect(tx.chainId).toBe(1337n);
    expect(tx.value).toBe(5n);
    const tip = BigInt((await call('eth_maxPriorityFeePerGas')) as string);
    expect(tx.maxPriorityFeePerGas).toBe(tip);
    expect(tx.maxFeePerGas).toBe(tip + 2n * 1_000_000_000n);
    expect(await recoverTransactionAddress({ serializedTransaction: raw as `0x02${string}` })).toBe(DEV.address);
    // The next one takes the pending nonce.
    const second = await pooled(await call('eth_sendTransaction', [{ from: DEV.address, to: TO }]));
    expect(second.tx.nonce).toBe(1n);
  });

  it('picks legacy, access-list and set-code types as geth does', async () => {
    const legacy = await pooled(
      await call('eth_sendTransaction', [{ from: DEV.address, to: TO, gasPrice: '0x77359400' }]),
    );
    expect(legacy.tx.type).toBe(0);
    // EIP-155: v = chainId · 2 + 35 + recovery id.
    expect([1337n * 2n + 35n, 1337n * 2n + 36n]).toContain(legacy.tx.v);
    const accessList = [{ address: TO, storageKeys: [`0x${'00'.repeat(31)}01`] }];
    const al = await pooled(
      await call('eth_sendTransaction', [{ from: DEV.address, to: TO, gasPrice: '0x77359400', accessList }]),
    );
    expect(al.tx.type).toBe(1);
    expect(al.tx.gasLimit).toBeGreaterThan(21_000n);
    const auth = await DEV.signAuthorization({ chainId: 1337, address: `0x${'33'.repeat(20)}`, nonce: 10 });
    const authorizationList = [
      { chainId: '0x539', address: auth.address, nonce: '0xa', yParity: `0x${auth.yParity}`, r: auth.r, s: auth.s },
    ];
    const setCode = await pooled(await call('eth_sendTransaction', [{ from: DEV.address, to: TO, authorizationList }]));
    expect(setCode.tx.type).toBe(4);
  });

  it('eth_signTransaction needs gas, fees and nonce and returns raw and tx', async () => {
    expect((await rpcError(call('eth_signTransaction', [{ from: DEV.address, to: TO }]))).message).toBe(
      'gas not specified',
    );
    expect(
      (await rpcError(call('eth_signTransaction', [{ from: DEV.address, to: TO, gas: '0x5208', nonce: '0x9' }])))
        .message,
    ).toBe('missing gasPrice or maxFeePerGas/maxPriorityFeePerGas');
    expect(
      (await rpcError(call('eth_signTransaction', [{ from: DEV.address, to: TO, gas: '0x5208', gasPrice: '0x1' }])))
        .message,
    ).toBe('nonce not specified');
    const out = (await call('eth_signTransaction', [
      { from: DEV.address, to: TO, gas: '0x5208', maxFeePerGas: '0x100', maxPriorityFeePerGas: '0x1', nonce: '0x9' },
    ])) as { raw: `0x02${string}`; tx: Record<string, unknown> };
    expect(await recoverTransactionAddress({ serializedTransaction: out.raw })).toBe(DEV.address);
    expect(out.tx).toMatchObject({ nonce: '0x9', gas: '0x5208', type: '0x2', from: DEV.address.toLowerCase() });
    // Signing only: nothing reaches the pool.
    expect(await call('eth_getTransactionByHash', [out.tx.hash])).toBeNull();
  });

  it('refuses locked accounts, a wrong chain id and empty creations', async () => {
    expect((await rpcError(call('eth_sendTransaction', [{ from: locked, to: TO }]))).message).toBe(
      'authentication needed: password or unlock',
    );
    expect((await rpcError(call('eth_sendTransaction', [{ from: DEV.address, to: TO, chainId: '0x1' }]))).message).toBe(
      "chainId does not match node's (have=1, want=1337)",
    );
    expect((await rpcError(call('eth_sendTransaction', [{ from: DEV.address }]))).message).toBe(
      'contract creation without any data provided',
    );
  });

  it('answers malformed transaction objects with -32602 as eth_call does, never an internal error', async () => {
    for (const method of ['eth_sendTransaction', 'eth_signTransaction']) {
      expect(await rpcError(call(method, [{ from: DEV.address, nonce: [] }]))).toEqual({
        code: -32602,
        message:
          'invalid argument 0: json: cannot unmarshal non-string into Go struct field TransactionArgs.nonce of type hexutil.Uint64',
      });
      expect((await rpcError(call(method, [{ from: 7, to: TO }]))).code).toBe(-32602);
      expect((await rpcError(call(method, [{ from: DEV.address, accessList: [{ storageKeys: 'x' }] }]))).code).toBe(
        -32602,
      );
    }
  });
});
