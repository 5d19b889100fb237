// A running tern-exec (HTTP and WebSocket on one port) over the execution-apis chain: viem sends a raw
// transaction over HTTP, the txpool namespace shows it, polling filters and eth_subscribe report pending
// transactions and new heads, and filters answer geth's errors.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { headEvents } from '../../../../../src/main/exec/chain/headEvents.js';
import { type ExecNode, startExecNode } from '../../../../../src/main/exec/node.js';
import { buildTestChain, EXECUTION_APIS, type TestChain } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const lifecycle = new Lifecycle(logger);
let chain: TestChain;
let node: ExecNode;
let url: string;
let wsUrl: string;

const fixtureTx = (name: string): `0x${string}` => {
  const line = readFileSync(join(EXECUTION_APIS, 'eth_sendRawTransaction', name), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('>> ')) as string;
  return (JSON.parse(line.slice(3)) as { params: [`0x${string}`] }).params[0];
};

async function rpc(
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

beforeAll(async () => {
  chain = await buildTestChain(logger);
  node = await startExecNode(
    chain.db,
    {
      rpc: {
        http: { host: '127.0.0.1', port: 0, apis: ['eth', 'txpool'] },
        ws: { host: '127.0.0.1', port: 0, apis: ['eth'] },
      },
      ipcPath: undefined,
      backend: {},
    },
    { logger, lifecycle },
  );
  url = (node.addresses[0] as { url: string }).url;
  wsUrl = (node.addresses.find((a) => a.wsUrl) as { wsUrl: string }).wsUrl;
}, 120_000);

afterAll(async () => {
  await lifecycle.stop('test done');
  await chain.db.close();
});

function openWs(): Promise<{ ws: WebSocket; messages: Array<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl);
    const messages: Array<Record<string, unknown>> = [];
    ws.on('message', (d) => messages.push(JSON.parse(String(d)) as Record<string, unknown>));
    ws.on('open', () => resolve({ ws, messages }));
    ws.on('error', reject);
  });
}

async function until<T>(f: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('tern-exec with its pool', () => {
  it('takes a raw transaction from viem over HTTP and shows it in txpool_*, with filters and subscriptions', async () => {
    const { ws, messages } = await openWs();
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newPendingTransactions'] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] }));
    const subs = await until(() => {
      const a = messages.find((m) => m.id === 1)?.result as string | undefined;
      const b = messages.find((m) => m.id === 2)?.result as string | undefined;
      return a && b ? [a, b] : undefined;
    });
    const filter = (await rpc('eth_newPendingTransactionFilter')).result as string;
    const blockFilter = (await rpc('eth_newBlockFilter')).result as string;

    const client = createPublicClient({ transport: http(url) });
    const hash = await client.sendRawTransaction({ serializedTransaction: fixtureTx('send-legacy-transaction.io') });
    expect(hash).toBe('0x7f256faa4161b9675df9e6c8c0cddb47bc02da482881c9b0604446104e1e2274');
    const pooled = await client.getTransaction({ hash });
    expect(pooled.blockNumber).toBeNull();

    expect((await rpc('txpool_status')).result).toEqual({ pending: '0x1', queued: '0x0' });
    const content = (await rpc('txpool_content')).result as {
      pending: Record<string, Record<string, { hash: string }>>;
    };
    const sender = '0x0c2c51a0990aee1d73c1228De158688341557508';
    expect(Object.keys(content.pending)).toEqual([
      expect.stringMatching(/^0x0c2c51a0990aee1d73c1228de158688341557508$/i),
    ]);
    expect(Object.values(content.pending)[0]?.['0']?.hash).toBe(hash);
    const inspect = (await rpc('txpool_inspect')).result as { pending: Record<string, Record<string, string>> };
    expect(Object.values(inspect.pending)[0]?.['0']).toMatch(/^0xaa0{38}: 10 wei \+ 25000 gas × 71369715 wei$/i);
    const from = (await rpc('txpool_contentFrom', [sender])).result as { pending: Record<string, unknown> };
    expect(Object.keys(from.pending)).toEqual(['0']);

    expect((await rpc('eth_getFilterChanges', [filter])).result).toEqual([hash]);
    expect((await rpc('eth_getFilterChanges', [filter])).result).toEqual([]);
    const note = await until(() =>
      messages.find((m) => (m.params as { subscription?: string } | undefined)?.subscription === subs[0]),
    );
    expect((note.params as { result: string }).result).toBe(hash);

    // A new head reaches block filters and newHeads subscribers.
    const head = chain.store.head();
    headEvents(chain.db).emit(head);
    expect((await rpc('eth_getFilterChanges', [blockFilter])).result).toEqual([
      `0x${Buffer.from(head.hash).toString('hex')}`,
    ]);
    const headNote = await until(() =>
      messages.find((m) => (m.params as { subscription?: string } | undefined)?.subscription === subs[1]),
    );
    expect((headNote.params as { result: { number: string } }).result.number).toBe(`0x${head.number.toString(16)}`);

    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_unsubscribe', params: [subs[0]] }));
    expect((await until(() => messages.find((m) => m.id === 3))).result).toBe(true);
    ws.close();

    expect((await rpc('eth_uninstallFilter', [filter])).result).toBe(true);
    expect((await rpc('eth_uninstallFilter', [filter])).result).toBe(false);
    expect((await rpc('eth_getFilterChanges', [filter])).error).toEqual({ code: -32000, message: 'filter not found' });
  });

  it('eth_getFilterLogs answers what eth_getLogs does for the same criteria', async () => {
    const criteria = { fromBlock: '0x0', toBlock: 'latest' };
    const id = (await rpc('eth_newFilter', [criteria])).result as string;
    const logs = (await rpc('eth_getLogs', [criteria])).result as unknown[];
    expect(logs.length).toBeGreaterThan(0);
    expect((await rpc('eth_getFilterLogs', [id])).result).toEqual(logs);
    expect((await rpc('eth_getFilterChanges', [id])).result).toEqual([]);
    const blockFilter = (await rpc('eth_newBlockFilter')).result as string;
    expect((await rpc('eth_getFilterLogs', [blockFilter])).error?.message).toBe('filter not found');
  });

  it('eth_subscribe over HTTP is refused (notifications need WebSocket or IPC)', async () => {
    expect((await rpc('eth_subscribe', ['newHeads'])).error?.code).toBe(-32601);
  });
});
