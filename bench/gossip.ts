// Gossip block validation throughput (op-node's checks: snappy, signature recovery, SSZ, block hash …) for 100 KB
// and 2 MB blocks: inline on the calling thread, one after another, against a piscina pool of 2 threads running
// the same validator on transferred bytes with 4 messages in flight. The pool pays only when its throughput beats
// inline by more than the coordinator time it frees is worth; the numbers decide where validation runs.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { BlockValidator } from '../src/main/node/p2p/blockValidator.js';
import { BENCH_CFG, BENCH_NOW_MS, BENCH_SIGNER, benchBlockMessage } from './gossipFixture.js';
import type { BenchRow, BenchSuite } from './suite.js';

const SIZES = [
  { label: '100 KB', bytes: 100_000, messages: 200 },
  { label: '2 MB', bytes: 2_000_000, messages: 20 },
];
const IN_FLIGHT = 4;

function inlineValidate(data: Uint8Array): string {
  const v = new BlockValidator(
    BENCH_CFG,
    { timestampThresholdMs: 60_000 },
    { signer: () => BENCH_SIGNER, now: () => BENCH_NOW_MS },
  );
  return v.validate(4, data).result;
}

async function run(): Promise<BenchRow[]> {
  const threads = Math.min(2, availableParallelism());
  const pool = new Piscina({
    filename: new URL('./gossipValidateWorker.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
  });
  const rows: BenchRow[] = [];
  try {
    for (const size of SIZES) {
      const msg = await benchBlockMessage(size.bytes);
      if (inlineValidate(msg) !== 'accept') throw new Error(`bench block of ${size.label} does not validate`);
      // Warm both paths (JIT, worker start-up) before timing.
      for (let i = 0; i < 3; i++) inlineValidate(msg);
      await Promise.all(Array.from({ length: 2 * threads }, () => pool.run(msg.slice(), { name: 'validate' })));

      let start = performance.now();
      for (let i = 0; i < size.messages; i++) inlineValidate(msg);
      const inlineMs = performance.now() - start;

      start = performance.now();
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < size.messages) {
          next++;
          const data = msg.slice();
          const r = (await pool.run(data, { name: 'validate', transferList: [data.buffer] })) as { result: string };
          if (r.result !== 'accept') throw new Error('pooled validation did not accept');
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      const poolMs = performance.now() - start;

      const note = `${msg.length} B compressed, ${size.messages} messages`;
      rows.push({
        task: `gossip validate ${size.label} inline`,
        opsPerSec: (size.messages * 1000) / inlineMs,
        meanMicros: (inlineMs * 1000) / size.messages,
        note,
      });
      rows.push({
        task: `gossip validate ${size.label} pool (${threads} threads, ${IN_FLIGHT} in flight)`,
        opsPerSec: (size.messages * 1000) / poolMs,
        meanMicros: (poolMs * 1000) / size.messages,
        note: `${note}; µs = wall time per message`,
      });
    }
  } finally {
    await pool.destroy();
  }
  return rows;
}

export const gossipSuite: BenchSuite = { name: 'gossip', run };
