// The eth/net/web3/debug handlers over the execution-apis chain, for what the conformance fixtures do not reach:
// historical state through the trie, proofs, tags without a forkchoice, filters, limits and the flag-driven
// options (--rpc.gascap, --rpc.evmtimeout, --gpo.*, --networkid).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { TablePrefix } from '../../../../../src/main/exec/db/schema.js';
import { iterateStorage } from '../../../../../src/main/exec/db/state.js';
import type { ExecRpcOptions } from '../../../../../src/main/exec/rpc/backend.js';
import type { CallPool } from '../../../../../src/main/exec/rpc/call.js';
import { createCallPool } from '../../../../../src/main/exec/rpc/callPool.js';
import { TrieStateReader } from '../../../../../src/main/exec/state/trieReader.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { asList, rlpDecode } from '../../../../../src/main/primitives/rlp.js';
import { buildTestChain, rpcError, serveTestChain, type TestChain, type TestRpc } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const EMITTER = '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df';
const SENDER = '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f';
const FUNDED = '0x0c2c51a0990aee1d73c1228de158688341557508';
const CREATED = '0x9344b07175800259691961298ca11c824e65032d';
/** A contract answering 0xff01 with 0xffee (execution-apis call-contract fixture). */
const ECHO = '0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667';
/** JUMPDEST PUSH1 0 JUMP: loops until out of gas. */
const LOOP = '0x5b600056';
/** JUMPDEST, CALL identity precompile with all gas, POP, JUMP 0: a call frame per iteration. */
const CALL_LOOP = '0x5b600060006000600060006004615000f1506000566000';

let chain: TestChain;
let rpc: TestRpc;

beforeAll(async () => {
  chain = await buildTestChain(logger);
  rpc = serveTestChain(chain);
}, 120_000);

afterAll(async () => {
  await chain.db.close();
});

describe('state of any block', () => {
  it('reads the head state through the trie exactly as the flat state holds it', () => {
    const head = chain.store.head();
    const flat = chain.store.stateReader();
    const trie = new TrieStateReader(flat, head.header.stateRoot);
    let accounts = 0;
    let slots = 0;
    for (const { key } of chain.db.kv.iterate({ prefix: Uint8Array.of(TablePrefix.account) })) {
      const address = key.subarray(1);
      const a = flat.getAccount(address);
      const b = trie.getAccount(address);
      expect(b?.nonce).toBe(a?.nonce);
      expect(b?.balance).toBe(a?.balance);
      expect(hex(b?.codeHash ?? new Uint8Array())).toBe(hex(a?.codeHash ?? new Uint8Array()));
      accounts++;
      for (const { slot } of iterateStorage(chain.db.kv, address)) {
        expect(trie.getStorage(address, slot)).toBe(flat.getStorage(address, slot));
        slots++;
      }
    }
    expect(accounts).toBeGreaterThan(20);
    expect(slots).toBeGreaterThan(10);
  });

  it('answers balance, nonce, code and storage at earlier blocks by number, hash and EIP-1898 object', async () => {
    const counter = async (at: unknown) => BigInt((await rpc.call('eth_getStorageAt', [EMITTER, '0x0', at])) as string);
    const values: bigint[] = [];
    for (let n = 0; n <= 20; n++) values.push(await counter(`0x${n.toString(16)}`));
    expect(values[0]).toBe(0n);
    expect(values[20]).toBe(0x1cn);
    for (let n = 1; n <= 20; n++) expect(values[n] as bigint).toBeGreaterThanOrEqual(values[n - 1] as bigint);
    const block3 = (await rpc.call('eth_getBlockByNumber', ['0x3', false])) as { hash: string };
    expect(await counter(block3.hash)).toBe(values[3]);
    expect(await counter({ blockHash: block3.hash, requireCanonical: true })).toBe(values[3]);
    expect(await counter({ blockNumber: '0x3' })).toBe(values[3]);
    // Created by the first transaction of block 1.
    expect(await rpc.call('eth_getCode', [CREATED, '0x0'])).toBe('0x');
    expect(await rpc.call('eth_getCode', [CREATED, '0x1'])).toBe(await rpc.call('eth_getCode', [CREATED, 'latest']));
    expect(((await rpc.call('eth_getCode', [CREATED, '0x1'])) as string).length).toBeGreaterThan(2);
    expect(await rpc.call('eth_getTransactionCount', [SENDER, '0x0'])).toBe('0x0');
    expect(await rpc.call('eth_getTransactionCount', [SENDER, 'pending'])).toBe(
      await rpc.call('eth_getTransactionCount', [SENDER, 'latest']),
    );
  });

  it('refuses unknown blocks and unmarked tags with geth errors', async () => {
    expect(await rpcError(rpc.call('eth_getBalance', [EMITTER, '0x99']))).toEqual({
      code: -32000,
      message: 'header not found',
    });
    expect(await rpcError(rpc.call('eth_getBalance', [EMITTER, `0x${'11'.repeat(32)}`]))).toEqual({
      code: -32000,
      message: 'header for hash not found',
    });
    const bare = serveTestChain(await buildTestChain(logger, undefined, { forkchoice: false }));
    expect(await rpcError(bare.call('eth_getBlockByNumber', ['safe', false]))).toEqual({
      code: -32000,
      message: 'safe block not found',
    });
    expect(await rpcError(bare.call('eth_getBalance', [EMITTER, 'finalized']))).toEqual({
      code: -32000,
      message: 'finalized block not found',
    });
    await bare.db.close();
  });
});

describe('proofs', () => {
  /** Walks a proof: each node hashes to the reference its parent holds; returns the leaf value, if any. */
  function verify(root: Uint8Array, key: Uint8Array, proof: string[]): Uint8Array | undefined {
    let want = root;
    const nibbles = [...key].flatMap((b) => [b >> 4, b & 15]);
    let pos = 0;
    for (const nodeHex of proof) {
      const node = bytes(nodeHex);
      expect(hex(keccak256(node))).toBe(hex(want));
      const items = asList(rlpDecode(node), 'node');
      if (items.length === 17) {
        const child = items[nibbles[pos] as number] as Uint8Array;
        pos++;
        if (child.length === 0) return undefined;
        want = child;
      } else {
        const path = items[0] as Uint8Array;
        const flag = (path[0] as number) >> 4;
        const p = [...path].flatMap((b) => [b >> 4, b & 15]).slice(flag & 1 ? 1 : 2);
        const matches = p.every((x, i) => nibbles[pos + i] === x);
        pos += p.length;
        if (flag >= 2) return matches && pos === nibbles.length ? (items[1] as Uint8Array) : undefined;
        if (!matches) return undefined;
        want = items[1] as Uint8Array;
      }
    }
    return undefined;
  }

  it('proves accounts and slots at the head and at an earlier block', async () => {
    for (const at of ['latest', '0x5']) {
      const block = (await rpc.call('eth_getBlockByNumber', [at, false])) as { stateRoot: string };
      const r = (await rpc.call('eth_getProof', [EMITTER, ['0x0', `0x${'00'.repeat(31)}01`], at])) as {
        accountProof: string[];
        storageHash: string;
        storageProof: Array<{ key: string; value: string; proof: string[] }>;
        balance: string;
      };
      const leaf = verify(bytes(block.stateRoot), keccak256(bytes(EMITTER)), r.accountProof);
      expect(leaf).toBeDefined();
      const account = asList(rlpDecode(leaf as Uint8Array), 'account') as Uint8Array[];
      expect(hex(account[2] as Uint8Array)).toBe(r.storageHash);
      expect(r.storageProof[0]?.key).toBe('0x0');
      expect(r.storageProof[1]?.key).toBe(`0x${'00'.repeat(31)}01`);
      const slot0 = verify(bytes(r.storageHash), keccak256(new Uint8Array(32)), r.storageProof[0]?.proof ?? []);
      expect(BigInt(hex(asList([rlpDecode(slot0 as Uint8Array)], 'v')[0] as Uint8Array))).toBe(
        BigInt(r.storageProof[0]?.value as string),
      );
      expect(await rpc.call('eth_getBalance', [EMITTER, at])).toBe(r.balance);
    }
  });

  it('proves the absence of an account', async () => {
    const r = (await rpc.call('eth_getProof', [`0x${'c1'.repeat(20)}`, ['0x1'], 'latest'])) as Record<string, unknown>;
    const head = chain.store.head();
    expect((r.accountProof as string[]).length).toBeGreaterThan(0);
    expect(verify(head.header.stateRoot, keccak256(bytes(`0x${'c1'.repeat(20)}`)), r.accountProof as string[])).toBe(
      undefined,
    );
    expect(r).toMatchObject({
      balance: '0x0',
      nonce: '0x0',
      codeHash: `0x${'00'.repeat(32)}`,
      storageHash: `0x${'00'.repeat(32)}`,
      storageProof: [{ key: '0x1', value: '0x0', proof: [] }],
    });
    expect(await rpcError(rpc.call('eth_getProof', [EMITTER, ['0xzz'], 'latest']))).toEqual({
      code: -32000,
      message: 'hex string invalid',
    });
  });
});

describe('blocks, transactions and receipts', () => {
  it('serves pending as the head, with geth’s nulled fields off-rollup', async () => {
    const latest = (await rpc.call('eth_getBlockByNumber', ['latest', false])) as Record<string, unknown>;
    const pending = (await rpc.call('eth_getBlockByNumber', ['pending', false])) as Record<string, unknown>;
    expect(pending).toEqual({ ...latest, hash: null, nonce: null, miner: null });
    const earliest = (await rpc.call('eth_getBlockByNumber', ['earliest', false])) as Record<string, unknown>;
    expect(earliest.number).toBe('0x0');
    const header = (await rpc.call('eth_getHeaderByNumber', ['0x2'])) as Record<string, unknown>;
    const block = (await rpc.call('eth_getBlockByNumber', ['0x2', false])) as Record<string, unknown>;
    expect(await rpc.call('eth_getHeaderByHash', [block.hash])).toEqual(header);
    for (const k of ['size', 'transactions', 'uncles', 'withdrawals']) delete block[k];
    expect(header).toEqual(block);
  });

  it('counts uncles and serves raw transactions', async () => {
    expect(await rpc.call('eth_getUncleCountByBlockNumber', ['0x1'])).toBe('0x0');
    expect(await rpc.call('eth_getUncleByBlockNumberAndIndex', ['0x1', '0x0'])).toBe(null);
    expect(await rpc.call('eth_getUncleCountByBlockNumber', ['0x99'])).toBe(null);
    const block = (await rpc.call('eth_getBlockByNumber', ['0x1', false])) as { hash: string; transactions: string[] };
    const raw = (await rpc.call('eth_getRawTransactionByBlockNumberAndIndex', ['0x1', '0x0'])) as string;
    expect(hex(keccak256(bytes(raw)))).toBe(block.transactions[0]);
    expect(await rpc.call('eth_getRawTransactionByHash', [block.transactions[0]])).toBe(raw);
    expect(await rpc.call('debug_getRawTransaction', [block.transactions[0]])).toBe(raw);
    expect(await rpc.call('eth_getRawTransactionByBlockHashAndIndex', [block.hash, '0x63'])).toBe('0x');
    expect(await rpc.call('eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x63'])).toBe(null);
    expect(await rpc.call('debug_getRawReceipts', [`0x${'11'.repeat(32)}`])).toEqual([]);
    expect(await rpc.call('debug_getRawHeader', ['0x99'])).toBe('0x');
  });

  it('matches each receipt of a block with its transaction receipt', async () => {
    const block = (await rpc.call('eth_getBlockByNumber', ['0x2', false])) as { transactions: string[] };
    const all = (await rpc.call('eth_getBlockReceipts', ['0x2'])) as unknown[];
    expect(all.length).toBe(block.transactions.length);
    for (const [i, hash] of block.transactions.entries()) {
      expect(await rpc.call('eth_getTransactionReceipt', [hash])).toEqual(all[i]);
    }
  });
});

describe('eth_getLogs', () => {
  it('filters by address, topics, OR lists and null wildcards', async () => {
    const all = (await rpc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])) as Array<{
      address: string;
      topics: string[];
    }>;
    expect(all.length).toBeGreaterThan(5);
    const one = all.find((l) => l.address === EMITTER && l.topics.length === 2) as { topics: string[] };
    const byAddress = (await rpc.call('eth_getLogs', [{ fromBlock: '0x0', address: EMITTER }])) as unknown[];
    expect(byAddress).toEqual(all.filter((l) => l.address === EMITTER));
    const byTopic = (await rpc.call('eth_getLogs', [
      { fromBlock: '0x0', topics: [null, [`0x${'ab'.repeat(32)}`, one.topics[1]]] },
    ])) as Array<{ topics: string[] }>;
    expect(byTopic.length).toBe(1);
    expect(byTopic[0]?.topics).toEqual(one.topics);
    const wildcardInList = (await rpc.call('eth_getLogs', [
      { fromBlock: '0x0', topics: [[`0x${'ab'.repeat(32)}`, null]] },
    ])) as unknown[];
    expect(wildcardInList).toEqual(all);
    const tooMany = await rpc.call('eth_getLogs', [{ fromBlock: '0x0', topics: [null, null, null, one.topics[0]] }]);
    expect(tooMany).toEqual([]);
    const block = (await rpc.call('eth_getBlockByNumber', ['0x2', false])) as { hash: string };
    const byHash = (await rpc.call('eth_getLogs', [{ blockHash: block.hash }])) as Array<{ blockNumber: string }>;
    expect(byHash).toEqual(all.filter((l) => (l as unknown as { blockNumber: string }).blockNumber === '0x2'));
  });

  it('answers geth’s errors and limits', async () => {
    const err = (filter: unknown) => rpcError(rpc.call('eth_getLogs', [filter]));
    expect(await err({ fromBlock: '0x5', toBlock: '0x2' })).toEqual({
      code: -32000,
      message: 'invalid block range params',
    });
    expect(await err({ fromBlock: '0x2', toBlock: '0x99' })).toEqual({
      code: -32000,
      message: 'invalid block range params',
    });
    expect(await err({ toBlock: 'pending' })).toEqual({ code: -32000, message: 'pending logs are not supported' });
    expect(await err({ blockHash: `0x${'11'.repeat(32)}` })).toEqual({ code: -32000, message: 'unknown block' });
    expect(await rpc.call('eth_getLogs', [{ fromBlock: 'latest', toBlock: '0x2' }])).toEqual([]);
    expect((await err({ blockHash: `0x${'11'.repeat(32)}`, fromBlock: '0x1' })).code).toBe(-32602);
    expect(await err({ topics: [null, null, null, null, null] })).toEqual({
      code: -32602,
      message: 'invalid argument 0: exceed max topics',
    });
    expect(await err({ address: Array(1001).fill(EMITTER) })).toEqual({
      code: -32602,
      message: 'invalid argument 0: exceed max addresses',
    });
    expect(await err({ address: '0x12' })).toEqual({
      code: -32602,
      message: 'invalid argument 0: invalid address: hex has invalid length 1 after decoding; expected 20 for address',
    });
    expect(await err({ topics: [1] })).toEqual({ code: -32602, message: 'invalid argument 0: invalid topic(s)' });
  });
});

// The same suite over the inline executor and over the call workers (state served from this thread).
describe.each([
  ['inline', false],
  ['call workers', true],
] as const)('calls (%s)', (_name, pooled) => {
  let rpc: TestRpc;
  let pool: CallPool | undefined;
  const serve = (opts: ExecRpcOptions = {}): TestRpc => serveTestChain(chain, opts, undefined, pool);
  beforeAll(() => {
    pool = pooled ? createCallPool(2, logger) : undefined;
    if (pooled) expect(pool).toBeDefined();
    rpc = serve();
  });
  afterAll(async () => {
    await pool?.close();
  });

  it('executes at earlier blocks and reports reverts, gas and consensus errors as geth', async () => {
    expect(await rpc.call('eth_call', [{ to: ECHO, input: '0xff01' }, '0x5'])).toBe('0xffee');
    expect(await rpc.call('eth_call', [{ to: ECHO, input: '0xff01' }])).toBe('0xffee');
    expect(await rpcError(rpc.call('eth_call', [{ input: LOOP, gas: '0x10000' }]))).toEqual({
      code: -32000,
      message: 'out of gas',
    });
    expect(
      await rpcError(rpc.call('eth_call', [{ from: `0x${'99'.repeat(20)}`, to: ECHO, value: '0x1' }, 'latest'])),
    ).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/^err: insufficient funds for gas \* price \+ value/),
    });
    expect(
      await rpcError(rpc.call('eth_call', [{ to: ECHO, gasPrice: '0x1', maxFeePerGas: '0x1' }, 'latest'])),
    ).toEqual({ code: -32000, message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified' });
    expect(await rpcError(rpc.call('eth_call', [{ to: ECHO, chainId: '0x1' }]))).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/^chainId does not match node's/),
    });
    expect(
      await rpcError(rpc.call('eth_call', [{ to: ECHO }, 'latest', { [ECHO]: { balance: '0x1' } }])),
    ).toMatchObject({ code: -32000 });
  });

  it('caps gas at --rpc.gascap', async () => {
    const capped = serve({ gasCap: 60_000n });
    expect(await rpcError(capped.call('eth_call', [{ input: LOOP }]))).toEqual({ code: -32000, message: 'out of gas' });
    expect(await rpcError(capped.call('eth_estimateGas', [{ input: LOOP }]))).toEqual({
      code: -32000,
      message: 'gas required exceeds allowance (60000)',
    });
    expect(await capped.call('eth_estimateGas', [{ from: FUNDED, to: EMITTER, value: '0x1' }])).toMatch(/^0x/);
  });

  it('aborts calls that run past --rpc.evmtimeout', async () => {
    const slow = serve({ evmTimeoutMs: 1 });
    expect(await rpcError(slow.call('eth_call', [{ input: LOOP, gas: '0x200000' }]))).toEqual({
      code: -32000,
      message: 'execution aborted (timeout = 1ms)',
    });
    const started = performance.now();
    const err = await rpcError(slow.call('eth_call', [{ input: CALL_LOOP, gas: '0x2faf080' }]));
    expect(err.message).toBe('execution aborted (timeout = 1ms)');
    expect(performance.now() - started).toBeLessThan(5000);
    const unlimited = serve({ evmTimeoutMs: 0 });
    expect(await unlimited.call('eth_call', [{ to: ECHO, input: '0xff01' }])).toBe('0xffee');
  });

  it('estimates what a transfer and a contract call need', async () => {
    expect(await rpc.call('eth_estimateGas', [{ from: FUNDED, to: `0x${'01'.repeat(20)}`, value: '0x1' }])).toBe(
      '0x5208',
    );
    const call = { from: FUNDED, to: EMITTER, input: '0x01' };
    const gas = BigInt((await rpc.call('eth_estimateGas', [call])) as string);
    // The estimate is enough, and within geth's 1.5% of the least that is.
    await rpc.call('eth_call', [{ ...call, gas: `0x${gas.toString(16)}` }]);
    const less = (gas * 97n) / 100n;
    expect(await rpcError(rpc.call('eth_call', [{ ...call, gas: `0x${less.toString(16)}` }]))).toEqual({
      code: -32000,
      message: 'out of gas',
    });
  });

  it('builds access lists of the slots and accounts a call touches', async () => {
    const r = (await rpc.call('eth_createAccessList', [{ from: FUNDED, to: EMITTER, input: '0x0102' }])) as {
      accessList: Array<{ address: string; storageKeys: string[] }>;
      gasUsed: string;
    };
    expect(r.accessList.map((e) => e.address)).toEqual([EMITTER]);
    expect(r.accessList[0]?.storageKeys.length).toBe(2);
    expect([...(r.accessList[0]?.storageKeys ?? [])].sort()).toEqual(r.accessList[0]?.storageKeys);
  });
});

describe('fees and oracle settings', () => {
  it('suggests the start price when every tip is under --gpo.ignoreprice, capped by --gpo.maxprice', async () => {
    expect(await rpc.call('eth_maxPriorityFeePerGas')).toBe('0xf4240');
    const head = (await rpc.call('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: string };
    expect(BigInt((await rpc.call('eth_gasPrice')) as string)).toBe(BigInt(head.baseFeePerGas) + 1_000_000n);
    expect(await serveTestChain(chain, { gpo: { maxPrice: 7n } }).call('eth_maxPriorityFeePerGas')).toBe('0x7');
    expect(await serveTestChain(chain, { gpo: { ignorePrice: 1n } }).call('eth_maxPriorityFeePerGas')).toBe('0x1');
  });

  it('suggests op-geth’s minimum on rollup chains (--gpo.minsuggestedpriorityfee)', async () => {
    const config = chain.store.config();
    const op = { ...config, optimism: { eip1559Elasticity: 6n, eip1559Denominator: 50n } };
    const { ExecRpcBackend } = await import('../../../../../src/main/exec/rpc/backend.js');
    const { ChainView } = await import('../../../../../src/main/exec/chain/chainView.js');
    const backend = new ExecRpcBackend(chain.db, op, { gpo: { minSuggestedPriorityFee: 5n } }, logger);
    const view = ChainView.open(chain.db, op);
    expect(backend.oracle.suggestTipCap(view)).toBe(5n);
    view.release();
  });

  it('checks fee history arguments as geth does', async () => {
    expect(await rpc.call('eth_feeHistory', ['0x0', 'latest', []])).toEqual({ oldestBlock: '0x0', gasUsedRatio: null });
    expect(await rpcError(rpc.call('eth_feeHistory', ['0x2', '0x99', []]))).toEqual({
      code: -32000,
      message: 'request beyond head block: requested 153, head 20',
    });
    expect(await rpcError(rpc.call('eth_feeHistory', ['0x2', 'latest', [101]]))).toEqual({
      code: -32000,
      message: 'invalid reward percentile: 101.000000',
    });
    expect(await rpcError(rpc.call('eth_feeHistory', [3, 'latest']))).toEqual({
      code: -32602,
      message: 'missing value for required argument 2',
    });
    const h = (await rpc.call('eth_feeHistory', [3, 'latest', null])) as Record<string, unknown[]>;
    expect(h.oldestBlock).toBe('0x12');
    expect(h.baseFeePerGas?.length).toBe(4);
    expect(h.reward).toBeUndefined();
    const wide = (await rpc.call('eth_feeHistory', ['0x400', '0x3', [50]])) as Record<string, unknown[]>;
    expect(wide.oldestBlock).toBe('0x0');
    expect(wide.gasUsedRatio?.length).toBe(4);
  });

  it('reports the head blob base fee', async () => {
    expect(await rpc.call('eth_blobBaseFee')).toBe('0x1');
  });
});

describe('net and web3', () => {
  it('reports the chain id as network id unless --networkid is set', async () => {
    expect(await rpc.call('net_version')).toBe('3503995874084926');
    expect(await serveTestChain(chain, { networkId: 5n }).call('net_version')).toBe('5');
    expect(await rpc.call('net_listening')).toBe(true);
    expect(await rpc.call('net_peerCount')).toBe('0x0');
    expect(await rpc.call('eth_syncing')).toBe(false);
  });

  it('hashes with web3_sha3 and names the client', async () => {
    expect(await rpc.call('web3_sha3', ['0x68656c6c6f20776f726c64'])).toBe(
      '0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad',
    );
    expect(await rpcError(rpc.call('web3_sha3', ['68']))).toEqual({
      code: -32602,
      message:
        'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes',
    });
    expect(await rpcError(rpc.call('eth_chainId', [1]))).toEqual({
      code: -32602,
      message: 'too many arguments, want at most 0',
    });
  });
});
