// tern-node's L1 client behind a flaky L1 (the fault proxy in front of a small chain): derivation's read pattern
// (a block by number, then its receipts and transactions, block after block) keeps pace through latency and 40 %
// 429/5xx answers, resets and cut answers — each request retried on its own, latency hidden by reading ahead —
// every failed attempt is counted in the rpc_client_* metrics, and the operator gets a rate-limited WARN with counts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyChain } from '../../../../../bench/l1/fakeL1.js';
import { xorshiftRng } from '../../../../../bench/rng.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { type FaultProxy, startFaultProxy } from '../../../../../src/main/devnet/faultProxy.js';
import { L1Client } from '../../../../../src/main/node/l1/client.js';

const BLOCKS = 60;
const blocks = emptyChain(BLOCKS);
const servers: Server[] = [];
const proxies: FaultProxy[] = [];
const clients: L1Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function startL1(): Promise<string> {
  const byHash = new Map(blocks.map((b) => [b.hash as string, b]));
  const answer = (req: { id: unknown; method: string; params: unknown[] }) => {
    const [id] = req.params as [string];
    let result: unknown = null;
    if (req.method === 'eth_getBlockByNumber') result = id === 'latest' ? blocks.at(-1) : blocks[Number(id)];
    if (req.method === 'eth_getBlockByHash') result = byHash.get(id) ?? null;
    return { jsonrpc: '2.0', id: req.id, result: result ?? null };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const out = Array.isArray(body) ? body.map(answer) : answer(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function client(url: string, prefetch: boolean, lines: string[] = [], errors: string[] = []) {
  const logger = createLogger({
    level: 'warn',
    format: 'json',
    stream: { write: (l: string) => lines.push(l) },
  }).logger;
  const c = new L1Client(
    {
      url,
      rpcKind: 'standard',
      trustRpc: false,
      maxBatchSize: 20,
      maxConcurrency: 10,
      rateLimit: 0,
      cacheSize: 200,
      retryBaseDelayMs: 20,
      retryMaxDelayMs: 200,
      prefetch,
    },
    {
      logger,
      metrics: {
        recordRpcClientRequest: () => (err?: unknown) => {
          if (err !== undefined) errors.push(err instanceof Error ? err.message : String(err));
        },
      },
    },
  );
  clients.push(c);
  return c;
}

/** Derivation's read pattern over blocks 1..BLOCKS-1; returns the elapsed ms. */
async function derive(c: L1Client): Promise<number> {
  const start = performance.now();
  await c.blockRefByLabel('latest');
  let parent = blocks[0]?.hash as string;
  for (let n = 1; n < BLOCKS; n++) {
    const ref = await c.blockRefByNumber(n);
    expect(ref.parentHash).toBe(parent);
    await c.fetchReceipts(ref.hash);
    await c.infoAndTxsByHash(ref.hash);
    parent = ref.hash;
  }
  return performance.now() - start;
}

describe('L1Client behind a flaky L1', () => {
  it('hides latency by reading ahead: at least 3x faster than one request at a time', async () => {
    const l1 = await startL1();
    const proxy = await startFaultProxy(l1, { latencyMs: [10, 20] }, { random: xorshiftRng(1).float });
    proxies.push(proxy);
    const slow = await derive(await client(proxy.url, false));
    const fast = await derive(await client(proxy.url, true));
    expect(fast * 3).toBeLessThan(slow);
  }, 60_000);

  it('keeps going through 40 % 429/5xx, resets and cut answers; counts every failed attempt; warns with counts', async () => {
    const l1 = await startL1();
    const proxy = await startFaultProxy(
      l1,
      { latencyMs: [0, 20], errorRate: 0.3, resetRate: 0.05, truncateRate: 0.05 },
      { random: xorshiftRng(7).float },
    );
    proxies.push(proxy);
    const lines: string[] = [];
    const errors: string[] = [];
    await derive(await client(proxy.url, true, lines, errors));
    const injected = proxy.counts.errors + proxy.counts.resets + proxy.counts.truncated;
    expect(injected).toBeGreaterThan(20);
    // Every injected fault was an attempt that failed and was counted (op-node's rpc_client_responses_total).
    expect(errors.length).toBe(injected);
    const warns = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'L1 RPC requests failing, retrying');
    expect(warns.length).toBeGreaterThanOrEqual(1);
    // Rate-limited: one at once, then at most one per 10 s (this run takes a few seconds).
    expect(warns.length).toBeLessThanOrEqual(2);
    expect(warns[0].failures).toBeGreaterThanOrEqual(1);
    expect(warns[0].lastErr).toBeTruthy();
  }, 60_000);
});
