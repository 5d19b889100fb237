// --signer against a small clef-protocol signer of our own (viem signs for it), over HTTP and IPC: startup pings
// account_version; eth_accounts is account_list; eth_sign is account_signData("text/plain", checksummed address,
// data); eth_signTransaction and eth_sendTransaction send clef's SendTxArgs to account_signTransaction and use its
// raw answer. Unknown accounts, a refusing signer and an unreachable one give clear errors.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress, type Hex, recoverMessageAddress, recoverTransactionAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../../src/main/common/logger/index.js';
import type { HttpRpcServer } from '../../../../../../src/main/common/rpc/http.js';
import { IpcRpcServer } from '../../../../../../src/main/common/rpc/ipc.js';
import { createNodeRpcServer } from '../../../../../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../../../../../src/main/common/rpc/registry.js';
import { ExternalSigner } from '../../../../../../src/main/exec/accounts/external/signer.js';
import { ChainStore } from '../../../../../../src/main/exec/chain/chainStore.js';
import { headEvents } from '../../../../../../src/main/exec/chain/headEvents.js';
import { dbPoolChain } from '../../../../../../src/main/exec/chain/poolChain.js';
import { type Database, openDatabase } from '../../../../../../src/main/exec/db/open.js';
import { devGenesis } from '../../../../../../src/main/exec/dev/genesis.js';
import { registerExecApis } from '../../../../../../src/main/exec/rpc/api.js';
import { ExecRpcBackend } from '../../../../../../src/main/exec/rpc/backend.js';
import { FilterSystem } from '../../../../../../src/main/exec/rpc/filters.js';
import { TernTxPool } from '../../../../../../src/main/exec/txpool/pool.js';
import { decodeTransaction } from '../../../../../../src/main/primitives/tx/decode.js';
import { serverError } from '../../../../../../src/main/protocol/jsonrpc/errors.js';
import { inprocCaller, rpcError } from '../../rpc/chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const KEY = `0x${'42'.repeat(32)}` as const;
const SIGNER = privateKeyToAccount(KEY);
const TO = `0x${'11'.repeat(20)}`;
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

/** What our clef saw: method and params of each request. */
const seen: { method: string; params: unknown[] }[] = [];
let refuse = false;

/** A clef-protocol signer: geth's account_* API, signing with one key through viem. */
function clefRegistry(): RpcRegistry {
  const record = (method: string, params: unknown[]) => seen.push({ method, params });
  const q = (v: unknown) => (v === undefined || v === null ? undefined : BigInt(v as string));
  return new RpcRegistry().registerNamespace('account', {
    version: (params) => {
      record('account_version', params);
      return '6.1.0';
    },
    list: (params) => {
      record('account_list', params);
      return [SIGNER.address];
    },
    signData: async (params) => {
      record('account_signData', params);
      if (refuse) throw serverError('Request denied');
      const [mime, address, data] = params as [string, string, Hex];
      if (mime !== 'text/plain' || getAddress(address) !== SIGNER.address) throw new Error('bad request');
      return SIGNER.signMessage({ message: { raw: data } });
    },
    signTransaction: async (params) => {
      record('account_signTransaction', params);
      if (refuse) throw serverError('Request denied');
      const a = (params as [Record<string, unknown>])[0];
      const common = {
        chainId: Number(a.chainId),
        nonce: Number(a.nonce),
        gas: q(a.gas),
        to: (a.to as Hex | null) ?? null,
        value: q(a.value),
        data: a.input as Hex,
      };
      const raw =
        a.gasPrice !== undefined
          ? a.accessList !== undefined
            ? await SIGNER.signTransaction({
                ...common,
                type: 'eip2930',
                gasPrice: q(a.gasPrice),
                accessList: a.accessList as never,
              })
            : await SIGNER.signTransaction({ ...common, type: 'legacy', gasPrice: q(a.gasPrice) })
          : await SIGNER.signTransaction({
              ...common,
              type: 'eip1559',
              maxFeePerGas: q(a.maxFeePerGas),
              maxPriorityFeePerGas: q(a.maxPriorityFeePerGas),
              accessList: a.accessList as never,
            });
      return { raw, tx: {} };
    },
  });
}

let dir: string;
let db: Database;
let pool: TernTxPool;
let filters: FilterSystem;
let http: HttpRpcServer;
let ipc: IpcRpcServer;
let httpUrl: string;
let viaHttp: ExternalSigner;
let viaIpc: ExternalSigner;
let call: (method: string, params?: unknown[]) => Promise<unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-clef-'));
  const registry = clefRegistry();
  http = createNodeRpcServer({ host: '127.0.0.1', port: 0 }, { registry, logger });
  httpUrl = (await http.start()).url;
  ipc = new IpcRpcServer({ path: join(dir, 'clef.ipc') }, { registry, logger });
  await ipc.start();
  viaHttp = await ExternalSigner.connect(httpUrl, { logger });
  viaIpc = await ExternalSigner.connect(join(dir, 'clef.ipc'), { logger });

  db = await openDatabase({ engine: 'memory' });
  const store = new ChainStore(db);
  await store.initGenesis(devGenesis({ developer: SIGNER.address, gasLimit: 30_000_000n, timestamp: 1_700_000_000n }));
  const backend = new ExecRpcBackend(db, store.config(), {}, logger);
  pool = await TernTxPool.open(dbPoolChain(db, store.config()), {}, { logger });
  filters = new FilterSystem(backend, pool, headEvents(db));
  const exec = registerExecApis(new RpcRegistry(), backend, {
    pool,
    heads: headEvents(db),
    filters,
    accounts: viaIpc,
  });
  call = inprocCaller(exec);
}, 60_000);

afterAll(async () => {
  await viaHttp?.close();
  await viaIpc?.close();
  await http?.stop();
  await ipc?.stop();
  filters.close();
  await pool.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('external signer (clef protocol)', () => {
  it('pings account_version on connect and lists accounts over HTTP and IPC', async () => {
    expect(seen.filter((s) => s.method === 'account_version')).toHaveLength(2);
    expect(viaHttp.version).toBe('6.1.0');
    expect(await viaHttp.accounts()).toEqual([SIGNER.address.toLowerCase()]);
    expect(await call('eth_accounts')).toEqual([SIGNER.address.toLowerCase()]);
  });

  it('eth_sign asks account_signData with text/plain and the checksummed address', async () => {
    seen.length = 0;
    const sig = (await call('eth_sign', [SIGNER.address.toLowerCase(), '0xdeadbeef'])) as Hex;
    expect(seen.at(-1)).toEqual({
      method: 'account_signData',
      params: ['text/plain', SIGNER.address, '0xdeadbeef'],
    });
    expect(['1b', '1c']).toContain(sig.slice(-2));
    expect(await recoverMessageAddress({ message: { raw: '0xdeadbeef' }, signature: sig })).toBe(SIGNER.address);
    expect((await rpcError(call('eth_sign', [TO, '0x00']))).message).toBe('unknown account');
  });

  it('eth_signTransaction sends clef’s SendTxArgs and returns the signer’s raw transaction', async () => {
    seen.length = 0;
    const out = (await call('eth_signTransaction', [
      { from: SIGNER.address, to: TO, gas: '0x5208', maxFeePerGas: '0x100', maxPriorityFeePerGas: '0x1', nonce: '0x9' },
    ])) as { raw: `0x02${string}`; tx: Record<string, unknown> };
    expect(seen.at(-1)).toEqual({
      method: 'account_signTransaction',
      params: [
        {
          from: SIGNER.address,
          to: getAddress(TO),
          gas: '0x5208',
          value: '0x0',
          nonce: '0x9',
          input: '0x',
          chainId: '0x539',
          maxFeePerGas: '0x100',
          maxPriorityFeePerGas: '0x1',
          accessList: [],
        },
      ],
    });
    expect(await recoverTransactionAddress({ serializedTransaction: out.raw })).toBe(SIGNER.address);
    expect(out.tx).toMatchObject({ nonce: '0x9', gas: '0x5208', type: '0x2', from: SIGNER.address.toLowerCase() });
  });

  it('eth_sendTransaction fills the transaction, has clef sign it and pools it', async () => {
    const legacyHash = await call('eth_sendTransaction', [{ from: SIGNER.address, to: TO, gasPrice: '0x77359400' }]);
    const raw = (await call('eth_getRawTransactionByHash', [legacyHash])) as Hex;
    const tx = decodeTransaction(bytes(raw));
    expect(tx.type).toBe(0);
    expect(tx.nonce).toBe(0n);
    expect([1337n * 2n + 35n, 1337n * 2n + 36n]).toContain(tx.v);
    expect(seen.at(-1)?.params[0]).toMatchObject({ gasPrice: '0x77359400', nonce: '0x0', gas: '0x5208' });
    expect(seen.at(-1)?.params[0]).not.toHaveProperty('accessList');
    const hash = await call('eth_sendTransaction', [{ from: SIGNER.address, to: TO, value: '0x5' }]);
    const second = decodeTransaction(bytes((await call('eth_getRawTransactionByHash', [hash])) as string));
    expect(second.type).toBe(2);
    expect(second.nonce).toBe(1n);
    expect(second.value).toBe(5n);
  });

  it('passes on a refusal, refuses unknown senders before any work, and fails to connect clearly', async () => {
    refuse = true;
    try {
      expect((await rpcError(call('eth_sign', [SIGNER.address, '0x00']))).message).toBe(
        'external signer refused to sign: Request denied',
      );
    } finally {
      refuse = false;
    }
    seen.length = 0;
    expect((await rpcError(call('eth_sendTransaction', [{ from: TO, to: TO }]))).message).toBe('unknown account');
    expect(seen.map((s) => s.method)).toEqual(['account_list']);
    await expect(ExternalSigner.connect(join(dir, 'nobody.ipc'), { logger })).rejects.toThrow(
      /error connecting to external signer .*nobody\.ipc: .*ENOENT/,
    );
  });
});
