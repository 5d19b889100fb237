// Calls off the coordinator (src/main/exec/rpc/call.ts, src/main/exec/workers/calls.ts): the Engine API's latency while 8
// looping eth_calls run (each up to --rpc.evmtimeout), and 8 eth_calls of a compute-heavy view function sent at
// once against the same 8 one after another (the call workers' throughput gain). A tern-exec node on an in-memory
// chain, its user RPC and Engine API over HTTP, the client in the same process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Lifecycle } from '../src/main/common/lifecycle.js';
import { createLogger } from '../src/main/common/logger/index.js';
import { RpcClient } from '../src/main/common/rpc/client.js';
import { ChainStore } from '../src/main/exec/chain/chainStore.js';
import { openDatabase } from '../src/main/exec/db/open.js';
import { startExecNode } from '../src/main/exec/node.js';
import { latencyNote, summariseLatency } from './latency.js';
import { shanghaiGenesis } from './shanghaiGenesis.js';
import type { BenchRow, BenchSuite } from './suite.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
/** JUMPDEST PUSH1 0 JUMP: loops until out of gas or --rpc.evmtimeout. */
const LOOP = '0x5b600056';
/** A view function: keccak of a counter 100,000 times (≈ 8M gas), returns the last word. */
export const HEAVY = '0x620186a05b80600052602060002050600190038060045760005260206000f3';
export const HEAVY_ADDRESS = `0x${'c0de'.padStart(40, '0')}`;
/** Reads 5,000 distinct storage slots (each a state read served from the coordinator on the worker path). */
const SLOTS = 5000;
const READER = '0x6113885b80545060019003806003570000';
const READER_ADDRESS = `0x${'5107'.padStart(40, '0')}`;
const LOOPS = 8;
const PARALLEL = 8;
const PROBE_MS = 4000;
const PROBE_EVERY_MS = 20;

/**
 * `PARALLEL` calls of `heavy` one after another, then all at once (after warming every call worker; each answer
 * must equal the first): two rows, the second with the throughput gain.
 */
export async function parallelCallRows(heavy: () => Promise<string>): Promise<BenchRow[]> {
  const expected = await heavy();
  // Warm every worker thread (piscina starts threads beyond the first on demand; each sets up its EVM once).
  await Promise.all(Array.from({ length: PARALLEL }, heavy));
  let t = performance.now();
  for (let i = 0; i < PARALLEL; i++) if ((await heavy()) !== expected) throw new Error('heavy call changed');
  const serial = performance.now() - t;
  t = performance.now();
  const all = await Promise.all(Array.from({ length: PARALLEL }, heavy));
  const parallel = performance.now() - t;
  if (all.some((r) => r !== expected)) throw new Error('heavy call changed');
  return [
    {
      task: `eth_call heavy view ×${PARALLEL}, one at a time`,
      opsPerSec: (PARALLEL * 1000) / serial,
      meanMicros: (serial / PARALLEL) * 1000,
      note: `${serial.toFixed(0)} ms total`,
    },
    {
      task: `eth_call heavy view ×${PARALLEL}, all at once`,
      opsPerSec: (PARALLEL * 1000) / parallel,
      meanMicros: (parallel / PARALLEL) * 1000,
      note: `${parallel.toFixed(0)} ms total, ${(serial / parallel).toFixed(2)}× the throughput of one at a time`,
    },
  ];
}

async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-calls-'));
  const lifecycle = new Lifecycle(logger);
  const secret = new Uint8Array(32).fill(0x42);
  const jwtSecretPath = join(dir, 'jwt');
  writeFileSync(jwtSecretPath, Buffer.from(secret).toString('hex'));
  const db = await openDatabase({ engine: 'memory' });
  lifecycle.onStop('database', () => db.close());
  await new ChainStore(db).initGenesis(
    shanghaiGenesis({
      [HEAVY_ADDRESS]: { balance: '0x0', code: HEAVY },
      [READER_ADDRESS]: { balance: '0x0', code: READER },
    }),
  );
  const node = await startExecNode(
    db,
    {
      rpc: { http: { host: '127.0.0.1', port: 0, apis: ['eth'] } },
      auth: { host: '127.0.0.1', port: 0, vhosts: undefined, jwtSecretPath },
      ipcPath: undefined,
      backend: { evmTimeoutMs: 5000 },
    },
    { logger, lifecycle },
  );
  const user = new RpcClient({ url: (node.addresses[0] as { url: string }).url, timeoutMs: 120_000 }, { logger });
  const engine = new RpcClient(
    { url: (node.authAddress as { url: string }).url, jwtSecret: secret, timeoutMs: 120_000 },
    { logger },
  );
  const rows: BenchRow[] = [];
  try {
    // Engine API latency while 8 looping calls run.
    const loops = Array.from({ length: LOOPS }, () =>
      user.call('eth_call', [{ input: LOOP }, 'latest']).catch(() => undefined),
    );
    await new Promise((r) => setTimeout(r, 200));
    const samples: number[] = [];
    const until = performance.now() + PROBE_MS;
    while (performance.now() < until) {
      const t = performance.now();
      await engine.call('engine_exchangeCapabilities', [[]]);
      samples.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
    await Promise.all(loops);
    const latency = summariseLatency(samples);
    rows.push({
      task: `engine_exchangeCapabilities, ${LOOPS} looping eth_calls`,
      opsPerSec: 1000 / latency.meanMs,
      meanMicros: latency.meanMs * 1000,
      note: latencyNote(latency),
    });

    // 8 heavy view calls: one after another, then all at once.
    rows.push(...(await parallelCallRows(() => user.call<string>('eth_call', [{ to: HEAVY_ADDRESS }, 'latest']))));

    // The cost of a state read served across the thread boundary: the slot reader on a worker, then inline.
    const reader = async (): Promise<number> => {
      const t0 = performance.now();
      await user.call('eth_call', [{ to: READER_ADDRESS }, 'latest']);
      return performance.now() - t0;
    };
    const best = async (): Promise<number> => {
      let min = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 5; i++) min = Math.min(min, await reader());
      return min;
    };
    const onWorker = await best();
    node.backend.calls.usePool(undefined);
    const inline = await best();
    rows.push({
      task: `eth_call reading ${SLOTS} slots, call worker`,
      opsPerSec: 1000 / onWorker,
      meanMicros: onWorker * 1000,
      note: `best of 5; inline ${inline.toFixed(1)} ms: ${(((onWorker - inline) / SLOTS) * 1000).toFixed(1)} µs more per slot read`,
    });
  } finally {
    await user.close();
    await engine.close();
    await lifecycle.stop('bench done');
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export const callsSuite: BenchSuite = { name: 'calls', run };
