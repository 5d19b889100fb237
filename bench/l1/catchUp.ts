// npm run bench:l1: how fast tern-node's L1 client walks layer 1 the way derivation reads it (each block by
// number, then its receipts and its transactions, in order) behind the fault proxy, in L1 blocks/s: clean, with
// 0-500 ms latency, with 40 % 429/5xx answers, and with both. The target is >= 5 blocks/s with both. The L1 is a
// local stand-in (empty blocks), so the numbers are the client's: retries, back-off and reading ahead.
import { createLogger } from '../../src/main/common/logger/index.js';
import { type Faults, startFaultProxy } from '../../src/main/devnet/faultProxy.js';
import { L1Client } from '../../src/main/node/l1/client.js';
import { startFakeL1 } from './fakeL1.js';

const BLOCKS = Number(process.argv[2] ?? 200);
const CASES: Array<[string, Faults]> = [
  ['clean', {}],
  ['latency 0-500 ms', { latencyMs: [0, 500] }],
  ['40 % 429/5xx', { errorRate: 0.4 }],
  ['0-500 ms and 40 % 429/5xx', { latencyMs: [0, 500], errorRate: 0.4 }],
  ['resets 10 %, cut answers 10 %', { resetRate: 0.1, truncateRate: 0.1 }],
];

const l1 = await startFakeL1(BLOCKS + 1);
const logger = createLogger({ level: 'error', format: 'json' }).logger;
const rows: string[] = [];
for (const [name, faults] of CASES) {
  const proxy = await startFaultProxy(l1.url, faults);
  const client = new L1Client(
    {
      url: proxy.url,
      rpcKind: 'standard',
      trustRpc: false,
      maxBatchSize: 20,
      maxConcurrency: 10,
      rateLimit: 0,
      cacheSize: 0,
      seqWindowSize: 3600,
    },
    { logger },
  );
  const start = performance.now();
  await client.blockRefByLabel('latest');
  for (let n = 1; n <= BLOCKS; n++) {
    const ref = await client.blockRefByNumber(n);
    await client.fetchReceipts(ref.hash);
    await client.infoAndTxsByHash(ref.hash);
  }
  const secs = (performance.now() - start) / 1000;
  const c = proxy.counts;
  rows.push(
    `| ${name} | ${(BLOCKS / secs).toFixed(1)} | ${c.forwarded + c.errors + c.resets + c.truncated} | ${c.errors + c.resets + c.truncated} |`,
  );
  process.stdout.write(`${rows.at(-1)}\n`);
  await client.close();
  await proxy.close();
}
await l1.close();
process.stdout.write(
  `\n| L1 faults | L1 blocks/s | requests | faults injected |\n|---|---|---|---|\n${rows.join('\n')}\n`,
);
