import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import {
  type EthstatsBackend,
  type EthstatsBlock,
  EthstatsReporter,
  parseEthstatsUrl,
} from '../../../../../src/main/exec/metrics/ethstats.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

const block = (n: number): EthstatsBlock => ({
  number: BigInt(n),
  hash: `0x${n.toString(16).padStart(64, '0')}`,
  parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}`,
  timestamp: 1000n + BigInt(n),
  miner: `0x${'00'.repeat(20)}`,
  gasUsed: 21000n,
  gasLimit: 30_000_000n,
  difficulty: 0n,
  transactions: [`0x${'ab'.repeat(32)}`],
  transactionsRoot: `0x${'11'.repeat(32)}`,
  stateRoot: `0x${'22'.repeat(32)}`,
});

let headNumber = 5;
const backend: EthstatsBackend = {
  head: () => block(headNumber),
  blockByNumber: (n) => block(Number(n)),
  pendingCount: () => 3,
  peerCount: () => 0,
  syncing: () => false,
  gasPrice: () => 7n,
  networkId: '901',
  chainId: '901',
};

type Msg = { emit: [string, Record<string, unknown>] };

/** A minimal ethstats server: checks the secret, answers ready, node-pong, asks for history. */
function startServer(port = 0, secret = 's3cret') {
  const wss = new WebSocketServer({ port, host: '127.0.0.1', path: '/api' });
  const got: Msg[] = [];
  const waiters: Array<{ topic: string; resolve: (m: Msg) => void }> = [];
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Msg;
      got.push(m);
      const [topic, payload] = m.emit;
      if (topic === 'hello' && payload.secret === secret) {
        ws.send(JSON.stringify({ emit: ['ready'] }));
        ws.send(JSON.stringify({ emit: ['history', { list: [1, 2] }] }));
      }
      if (topic === 'node-ping') ws.send(JSON.stringify({ emit: ['node-pong', payload] }));
      for (const w of waiters.splice(0)) {
        if (w.topic === topic) w.resolve(m);
        else waiters.push(w);
      }
    });
  });
  const next = (topic: string) =>
    new Promise<Msg>((resolve, reject) => {
      const seen = got.find((m) => m.emit[0] === topic);
      if (seen) return resolve(seen);
      waiters.push({ topic, resolve });
      setTimeout(() => reject(new Error(`no ${topic}`)), 5000);
    });
  return { wss, got, next, port: () => (wss.address() as AddressInfo).port };
}

/** ws's server emits close only once its clients are gone. */
function closeServer(wss: WebSocketServer): Promise<void> {
  for (const c of wss.clients) c.terminate();
  return new Promise<void>((r) => wss.close(() => r()));
}

let reporter: EthstatsReporter | undefined;
afterEach(() => reporter?.stop());

describe('EthstatsReporter', () => {
  it('parses nodename:secret@host:port', () => {
    expect(parseEthstatsUrl('tern:s:e@127.0.0.1:3000')).toEqual({
      node: 'tern',
      secret: 's:e',
      ws: 'ws://127.0.0.1:3000/api',
    });
    expect(() => parseEthstatsUrl('nohost')).toThrow(/nodename:secret@host:port/);
  });

  it('logs in, then reports block, pending, stats, latency and history', async () => {
    const server = startServer();
    await new Promise((r) => server.wss.once('listening', r));
    reporter = new EthstatsReporter(
      { url: `tern-1:s3cret@127.0.0.1:${server.port()}`, client: 'tern-exec/test', headPollMs: 50 },
      { backend, logger },
    );
    reporter.start();
    const hello = await server.next('hello');
    expect(hello.emit[1]).toMatchObject({
      id: 'tern-1',
      secret: 's3cret',
      info: { name: 'tern-1', node: 'tern-exec/test', net: '901' },
    });
    const blockMsg = await server.next('block');
    expect(blockMsg.emit[1]).toMatchObject({
      id: 'tern-1',
      block: { number: 5, gasUsed: 21000, transactions: [{ hash: `0x${'ab'.repeat(32)}` }] },
    });
    expect((await server.next('pending')).emit[1]).toMatchObject({ stats: { pending: 3 } });
    expect((await server.next('stats')).emit[1]).toMatchObject({
      stats: { active: true, syncing: false, gasPrice: 7 },
    });
    expect((await server.next('latency')).emit[1]).toHaveProperty('latency');
    const history = await server.next('history');
    expect((history.emit[1].history as Array<{ number: number }>).map((b) => b.number)).toEqual([1, 2]);
    // A new head is reported without waiting for the next full report.
    const before = server.got.filter((m) => m.emit[0] === 'block').length;
    headNumber = 6;
    await new Promise((r) => setTimeout(r, 300));
    const blocks = server.got.filter((m) => m.emit[0] === 'block');
    expect(blocks.length).toBeGreaterThan(before);
    expect(blocks.at(-1)?.emit[1]).toMatchObject({ block: { number: 6 } });
    await closeServer(server.wss);
  });

  it('reconnects when the server goes away and comes back', async () => {
    const first = startServer();
    await new Promise((r) => first.wss.once('listening', r));
    const port = first.port();
    reporter = new EthstatsReporter(
      { url: `tern-1:s3cret@127.0.0.1:${port}`, client: 'c', reconnectMs: 100 },
      { backend, logger },
    );
    reporter.start();
    await first.next('stats');
    expect(reporter.connected).toBe(true);
    await closeServer(first.wss);
    await new Promise((r) => setTimeout(r, 150));
    expect(reporter.connected).toBe(false);
    const second = startServer(port);
    await second.next('hello');
    await second.next('stats');
    expect(reporter.connected).toBe(true);
    await closeServer(second.wss);
  });

  it('hangs up and retries when the secret is refused', async () => {
    const server = startServer(0, 'other');
    await new Promise((r) => server.wss.once('listening', r));
    reporter = new EthstatsReporter(
      { url: `tern-1:wrong@127.0.0.1:${server.port()}`, client: 'c', reconnectMs: 50, loginTimeoutMs: 100 },
      { backend, logger },
    );
    reporter.start();
    await new Promise((r) => setTimeout(r, 600));
    expect(reporter.connected).toBe(false);
    expect(server.got.filter((m) => m.emit[0] === 'hello').length).toBeGreaterThanOrEqual(2);
    expect(server.got.some((m) => m.emit[0] === 'stats')).toBe(false);
    await closeServer(server.wss);
  });
});
