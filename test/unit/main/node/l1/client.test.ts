// The L1 client against a scripted JSON-RPC server: a real goerli block (op-l1-rpc fixture) and a synthetic block
// whose receipts root commits to scripted receipts.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { effectiveCacheSize, L1Client, type L1ClientOptions } from '../../../../../src/main/node/l1/client.js';
import { withConfDepth } from '../../../../../src/main/node/l1/confDepth.js';
import type { Hex } from '../../../../../src/main/node/l1/interface.js';
import { type Header, headerHash, headerToJson } from '../../../../../src/main/primitives/block/header.js';
import { logsBloom } from '../../../../../src/main/primitives/receipt/bloom.js';
import { encodeReceipt, type Receipt } from '../../../../../src/main/primitives/receipt/receipt.js';
import { orderedTrieRoot } from '../../../../../src/main/primitives/trie/root.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
type Json = Record<string, unknown>;
const hex = (b: Uint8Array): Hex => `0x${Buffer.from(b).toString('hex')}`;
const qty = (n: bigint | number) => `0x${n.toString(16)}`;

const FULL = JSON.parse(
  readFileSync(join(FIXTURES, 'op-l1-rpc/blocks/post-shanghai-success_data.json'), 'utf8'),
) as Json;
const FULL_HASH = FULL.hash as Hex;
const HEADER_ONLY = { ...FULL, transactions: (FULL.transactions as Json[]).map((t) => t.hash) };

// A synthetic block: 3 transactions (hashes only) and receipts committed to by its receipts root.
const TX_HASHES = [1, 2, 3].map((i) => hex(keccak256(Uint8Array.of(i))));
const RECEIPTS: Receipt[] = [0, 1, 2].map((i) => {
  const logs = [
    { address: new Uint8Array(20).fill(i + 1), topics: [new Uint8Array(32).fill(9)], data: Uint8Array.of(i) },
  ];
  return {
    type: i === 0 ? 0 : 2,
    status: i === 1 ? 0 : 1,
    cumulativeGasUsed: BigInt(21000 * (i + 1)),
    logsBloom: logsBloom(logs),
    logs,
  };
});
const SYN_HEADER: Header = {
  parentHash: new Uint8Array(32).fill(1),
  uncleHash: new Uint8Array(32),
  coinbase: new Uint8Array(20),
  stateRoot: new Uint8Array(32),
  transactionsRoot: new Uint8Array(32).fill(2),
  receiptsRoot: orderedTrieRoot(RECEIPTS.map(encodeReceipt)),
  logsBloom: new Uint8Array(256),
  difficulty: 0n,
  number: 100n,
  gasLimit: 30_000_000n,
  gasUsed: 63_000n,
  timestamp: 1_700_000_000n,
  extraData: new Uint8Array(0),
  mixHash: new Uint8Array(32),
  nonce: new Uint8Array(8),
  baseFeePerGas: 7n,
  withdrawalsRoot: new Uint8Array(32).fill(3),
};
const SYN_HASH = hex(headerHash(SYN_HEADER));
const SYN_JSON = { ...headerToJson(SYN_HEADER), transactions: TX_HASHES };
const receiptJson = (r: Receipt, i: number): Json => ({
  blockHash: SYN_HASH,
  transactionHash: TX_HASHES[i],
  transactionIndex: qty(i),
  type: qty(r.type),
  status: qty(r.status),
  cumulativeGasUsed: qty(r.cumulativeGasUsed),
  logsBloom: hex(r.logsBloom),
  logs: r.logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data) })),
});

interface Rpc {
  url: string;
  server: Server;
  calls: string[];
  /** Request bodies: one entry per HTTP request, the number of calls it carried. */
  bodies: number[];
  inFlight: number;
  maxInFlight: number;
  fail503: number;
  methods: Set<string>;
  overrides: Map<string, (params: unknown[]) => unknown>;
}

async function startRpc(): Promise<Rpc> {
  const rpc = {
    calls: [],
    bodies: [],
    inFlight: 0,
    maxInFlight: 0,
    fail503: 0,
    methods: new Set([
      'eth_getBlockByHash',
      'eth_getBlockByNumber',
      'eth_getBlockReceipts',
      'eth_getTransactionReceipt',
      'debug_getRawReceipts',
      'alchemy_getTransactionReceipts',
    ]),
    overrides: new Map(),
  } as unknown as Rpc;
  const answer = (req: Json): Json => {
    const method = req.method as string;
    const params = (req.params ?? []) as unknown[];
    rpc.calls.push(method);
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: req.id, result });
    const override = rpc.overrides.get(method);
    if (override) return ok(override(params));
    if (!rpc.methods.has(method)) {
      return {
        jsonrpc: '2.0',
        id: req.id,
        error: { code: -32601, message: `the method ${method} does not exist/is not available` },
      };
    }
    switch (method) {
      case 'eth_getBlockByHash': {
        if (params[0] === FULL_HASH) return ok(params[1] ? FULL : HEADER_ONLY);
        if (params[0] === SYN_HASH) return ok(SYN_JSON);
        return ok(null);
      }
      case 'eth_getBlockByNumber':
        if (params[0] === 'latest' || params[0] === FULL.number) return ok(HEADER_ONLY);
        if (params[0] === 'safe' || params[0] === qty(100)) return ok(SYN_JSON);
        return ok(null);
      case 'eth_getBlockReceipts':
        return ok(params[0] === SYN_HASH ? RECEIPTS.map(receiptJson) : null);
      case 'alchemy_getTransactionReceipts':
        return ok({ receipts: RECEIPTS.map(receiptJson) });
      case 'debug_getRawReceipts':
        return ok(RECEIPTS.map((r) => hex(encodeReceipt(r))));
      case 'eth_getTransactionReceipt': {
        const i = TX_HASHES.indexOf(params[0] as Hex);
        return ok(i < 0 ? null : receiptJson(RECEIPTS[i] as Receipt, i));
      }
    }
    return ok(null);
  };
  rpc.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      rpc.inFlight++;
      rpc.maxInFlight = Math.max(rpc.maxInFlight, rpc.inFlight);
      setTimeout(() => {
        rpc.inFlight--;
        if (rpc.fail503 > 0) {
          rpc.fail503--;
          res.writeHead(503).end('busy');
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json | Json[];
        rpc.bodies.push(Array.isArray(body) ? body.length : 1);
        const out = Array.isArray(body) ? body.map(answer) : answer(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
      }, 5);
    });
  });
  await new Promise<void>((r) => rpc.server.listen(0, '127.0.0.1', r));
  rpc.url = `http://127.0.0.1:${(rpc.server.address() as AddressInfo).port}`;
  return rpc;
}

const servers: Rpc[] = [];
const clients: L1Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => new Promise((r) => s.server.close(r))));
});

async function setup(opts: Partial<L1ClientOptions> = {}): Promise<{ rpc: Rpc; client: L1Client }> {
  const rpc = await startRpc();
  servers.push(rpc);
  const client = new L1Client(
    {
      url: rpc.url,
      rpcKind: 'standard',
      trustRpc: false,
      maxBatchSize: 20,
      maxConcurrency: 10,
      rateLimit: 0,
      cacheSize: 10,
      retryBaseDelayMs: 1,
      ...opts,
    },
    { logger },
  );
  clients.push(client);
  return { rpc, client };
}

describe('L1Client', () => {
  it('reads block references by label, number and hash, verified', async () => {
    const { client } = await setup();
    const latest = await client.blockRefByLabel('latest');
    expect(latest).toEqual({
      hash: FULL_HASH,
      number: Number(FULL.number),
      parentHash: FULL.parentHash,
      timestamp: Number(FULL.timestamp),
    });
    expect(await client.blockRefByNumber(Number(FULL.number))).toEqual(latest);
    expect(await client.blockRefByHash(FULL_HASH)).toEqual(latest);
    const info = await client.infoByHash(FULL_HASH);
    expect(info.header.withdrawalsRoot).toBeDefined();
    expect(info.header.baseFeePerGas).toBe(BigInt(FULL.baseFeePerGas as string));
  });

  it('returns a block’s transactions decoded, checked against the transactions root', async () => {
    const { client } = await setup();
    const { info, txs } = await client.infoAndTxsByHash(FULL_HASH);
    expect(info.hash).toBe(FULL_HASH);
    expect(txs.map((t) => hex(t.hash))).toEqual((FULL.transactions as Json[]).map((t) => t.hash));
    expect(txs.map((t) => t.type)).toEqual((FULL.transactions as Json[]).map((t) => Number(t.type)));
  });

  it('rejects a header whose fields do not hash to its hash, and never caches it', async () => {
    const { rpc, client } = await setup();
    let bad = true;
    rpc.overrides.set('eth_getBlockByHash', () =>
      bad ? { ...HEADER_ONLY, receiptsRoot: `0x${'aa'.repeat(32)}` } : HEADER_ONLY,
    );
    const err = await client.infoByHash(FULL_HASH).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'L1_BLOCK_INVALID', severity: 'temporary' });
    expect((err as Error).message).toContain(FULL_HASH);
    expect((err as Error).message).toContain('failed to verify block hash');
    bad = false;
    expect((await client.infoByHash(FULL_HASH)).hash).toBe(FULL_HASH);
    // With --l1.trustrpc the same bad answer passes.
    const trusted = await setup({ trustRpc: true });
    trusted.rpc.overrides.set('eth_getBlockByHash', () => ({ ...HEADER_ONLY, receiptsRoot: `0x${'aa'.repeat(32)}` }));
    expect((await trusted.client.infoByHash(FULL_HASH)).hash).toBe(FULL_HASH);
  });

  it('rejects an answer for another block than the one asked', async () => {
    const { client } = await setup();
    await expect(client.blockRefByNumber(100 + 1)).rejects.toMatchObject({ code: 'L1_NOT_FOUND' });
    const { rpc, client: c2 } = await setup();
    rpc.overrides.set('eth_getBlockByHash', () => SYN_JSON);
    await expect(c2.infoByHash(FULL_HASH)).rejects.toThrow(/RPC answered block/);
  });

  it('answers a missing block with a temporary L1_NOT_FOUND', async () => {
    const { client } = await setup();
    await expect(client.infoByHash(`0x${'11'.repeat(32)}`)).rejects.toMatchObject({
      code: 'L1_NOT_FOUND',
      severity: 'temporary',
    });
  });

  it.each([
    ['standard', 'eth_getBlockReceipts'],
    ['any', 'eth_getBlockReceipts'],
    ['alchemy', 'alchemy_getTransactionReceipts'],
    ['debug_geth', 'debug_getRawReceipts'],
    ['basic', 'eth_getTransactionReceipt'],
  ] as const)('fetches receipts for rpckind %s with %s, checked against the receipts root', async (kind, method) => {
    const { rpc, client } = await setup({ rpcKind: kind });
    const { info, receipts } = await client.fetchReceipts(SYN_HASH);
    expect(info.hash).toBe(SYN_HASH);
    expect(receipts.map((r) => hex(encodeReceipt(r)))).toEqual(RECEIPTS.map((r) => hex(encodeReceipt(r))));
    expect(rpc.calls).toContain(method);
    const others = [
      'eth_getBlockReceipts',
      'alchemy_getTransactionReceipts',
      'debug_getRawReceipts',
      'eth_getTransactionReceipt',
    ].filter((m) => m !== method);
    expect(rpc.calls.filter((c) => others.includes(c))).toEqual([]);
  });

  it('falls back to per-transaction receipts when the provider lacks its block method', async () => {
    const { rpc, client } = await setup({ rpcKind: 'erigon' });
    await client.fetchReceipts(SYN_HASH);
    expect(rpc.calls).toContain('erigon_getBlockReceiptsByBlockHash');
    expect(rpc.calls.filter((c) => c === 'eth_getTransactionReceipt').length).toBe(3);
  });

  it('batches per-transaction receipts by --l1.rpc-max-batch-size', async () => {
    const { rpc, client } = await setup({ rpcKind: 'basic', maxBatchSize: 2 });
    await client.fetchReceipts(SYN_HASH);
    expect(rpc.bodies).toEqual([1, 2, 1]);
  });

  it('rejects receipts that do not match the receipts root or the transaction count, and does not cache them', async () => {
    const { rpc, client } = await setup();
    let tamper: ((r: Json[]) => Json[]) | undefined = (r) => r.map((x, i) => (i === 1 ? { ...x, status: '0x1' } : x));
    rpc.overrides.set('eth_getBlockReceipts', () =>
      tamper ? tamper(RECEIPTS.map(receiptJson)) : RECEIPTS.map(receiptJson),
    );
    await expect(client.fetchReceipts(SYN_HASH)).rejects.toThrow(/failed to verify receipts/);
    tamper = (r) => r.slice(0, 2);
    await expect(client.fetchReceipts(SYN_HASH)).rejects.toThrow(/2 receipts for 3 transactions/);
    tamper = () => [];
    await expect(client.fetchReceipts(SYN_HASH)).rejects.toThrow(/0 receipts for 3 transactions/);
    tamper = undefined;
    expect((await client.fetchReceipts(SYN_HASH)).receipts.length).toBe(3);
  });

  it('caches verified answers by hash (LRU of --l1.cache-size)', async () => {
    const { rpc, client } = await setup({ cacheSize: 1 });
    await client.fetchReceipts(SYN_HASH);
    const n = rpc.calls.length;
    await client.fetchReceipts(SYN_HASH);
    await client.infoByHash(SYN_HASH);
    expect(rpc.calls.length).toBe(n);
    await client.infoByHash(FULL_HASH); // evicts the synthetic block's header
    await client.infoByHash(SYN_HASH);
    expect(rpc.calls.length).toBe(n + 2);
    expect(effectiveCacheSize(0, 3600)).toBe(5400);
    expect(effectiveCacheSize(900, 3600)).toBe(900);
  });

  it('retries 503 answers with back-off', async () => {
    const { rpc, client } = await setup();
    rpc.fail503 = 2;
    expect((await client.blockRefByLabel('latest')).hash).toBe(FULL_HASH);
    const { rpc: r2, client: c2 } = await setup({ maxAttempts: 2 });
    r2.fail503 = 5;
    await expect(c2.blockRefByLabel('latest')).rejects.toMatchObject({ severity: 'temporary' });
  });

  it('keeps at most --l1.max-concurrency requests in flight', async () => {
    const { rpc, client } = await setup({ maxConcurrency: 2, cacheSize: 0, seqWindowSize: 0 });
    await Promise.all(Array.from({ length: 8 }, () => client.blockRefByLabel('latest')));
    expect(rpc.maxInFlight).toBeLessThanOrEqual(2);
    expect(rpc.calls.length).toBe(8);
  });

  it('holds requests to --l1.rpc-rate-limit', async () => {
    const { client } = await setup({ rateLimit: 20, maxBatchSize: 1 });
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 30 }, () => client.blockRefByLabel('latest')));
    // 20 at once (the bucket), then 10 more at 20/s: about half a second.
    expect(performance.now() - t0).toBeGreaterThan(400);
  });

  it('hides blocks within --verifier.l1-confs of the head', async () => {
    const { client } = await setup();
    const head = await client.blockRefByLabel('latest');
    const deep = withConfDepth(client, 4, () => ({ ...head, number: 103 }));
    await expect(deep.blockRefByNumber(100)).rejects.toMatchObject({ code: 'L1_NOT_FOUND' });
    const ok = withConfDepth(client, 4, () => ({ ...head, number: 104 }));
    expect((await ok.blockRefByNumber(100)).hash).toBe(SYN_HASH);
  });
});
