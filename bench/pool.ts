// The worker pool: what a round trip to a thread costs (the reason tasks carry ≥ ~0.5 ms of work), and batched
// keccak of 32-byte inputs through the pool against the same work on the calling thread.
import { randomBytes } from 'node:crypto';
import { Bench, type Task } from 'tinybench';
import { nativeStatus } from '../src/main/native/index.js';
import { keccak256Packed, packInputs } from '../src/main/native/keccak.js';
import { inlinePool } from '../src/main/pool/inline.js';
import type { TaskMapOf, WorkerPool } from '../src/main/pool/interface.js';
import { PiscinaPool } from '../src/main/pool/piscina.js';
import * as keccakTasks from '../src/workers/keccak.js';
import type { BenchRow, BenchSuite } from './suite.js';

type KeccakTasks = TaskMapOf<typeof keccakTasks>;

const PER_TASK = 4096;
const INPUT_LEN = 32;
/** Empty tasks kept in flight at once for the pipelined round-trip row. */
const PIPELINE = 64;

interface Measure {
  name: string;
  /** Items one iteration handles (round trips or hashes), for opsPerSec. */
  items: number;
  note: string;
}

function row(task: Task | undefined, m: Measure): BenchRow | undefined {
  if (task === undefined) return undefined;
  const r = task.result;
  if (r.state !== 'completed' && r.state !== 'aborted-with-statistics') {
    return { task: m.name, opsPerSec: 0, meanMicros: 0, note: r.state === 'errored' ? r.error.message : r.state };
  }
  const { mean, p50, p99, rme, samplesCount } = r.latency;
  return {
    task: m.name,
    opsPerSec: mean > 0 ? (m.items * 1000) / mean : 0,
    meanMicros: mean * 1000,
    note: `${m.note}p50 ${(p50 * 1000).toFixed(1)} µs, p99 ${(p99 * 1000).toFixed(1)} µs, ±${rme.toFixed(1)}%, ${samplesCount} samples`,
  };
}

async function run(): Promise<BenchRow[]> {
  const pool = new PiscinaPool<KeccakTasks>('keccak', { idleTimeoutMs: 60_000 });
  const inline: WorkerPool<KeccakTasks> = inlinePool(keccakTasks, { isolate: false });
  const threads = pool.threads;
  const inflight = 2 * threads;
  const inputs = Array.from({ length: PER_TASK }, () => new Uint8Array(randomBytes(INPUT_LEN)));
  const packed = packInputs(inputs);
  let sink = 0;

  // Every thread up and warm before timing: piscina starts one and adds the rest under load.
  await Promise.all(Array.from({ length: 4 * threads }, () => pool.run('sleep', { ms: 20 })));

  // Each task gets buffers of its own and transfers them, as the services do (one copy, no structured clone).
  const task = (p: WorkerPool<KeccakTasks>): Promise<{ digests: Uint8Array }> => {
    const data = packed.data.slice();
    const offsets = packed.offsets.slice();
    return p.run('keccakBatch', { data, offsets }, { transfer: [data.buffer, offsets.buffer] });
  };

  const m = {
    rtt: { name: 'pool round trip, empty task', items: 1, note: 'whoami, 1 in flight; ' },
    rttInline: { name: 'inline pool round trip, empty task', items: 1, note: 'same task, calling thread; ' },
    rttPipelined: {
      name: `pool round trips, ${PIPELINE} in flight`,
      items: PIPELINE,
      note: `ops/s = tasks/s over ${threads} threads; µs per ${PIPELINE}; `,
    },
    poolOne: {
      name: `keccak ${INPUT_LEN}B pool ${PER_TASK}/task, 1 in flight`,
      items: PER_TASK,
      note: 'ops/s = hashes/s; µs per round trip; ',
    },
    poolMany: {
      name: `keccak ${INPUT_LEN}B pool ${PER_TASK}/task, ${inflight} in flight`,
      items: inflight * PER_TASK,
      note: `hashes/s over ${threads} threads; µs per ${inflight} tasks; `,
    },
    inlinePool: {
      name: `keccak ${INPUT_LEN}B inline pool ${PER_TASK}/task`,
      items: PER_TASK,
      note: 'hashes/s; same task on the calling thread; ',
    },
    inlineDirect: {
      name: `keccak ${INPUT_LEN}B keccak256Packed(${PER_TASK}) inline`,
      items: PER_TASK,
      note: 'hashes/s; the bare call, no pool; ',
    },
  } satisfies Record<string, Measure>;

  const bench = new Bench({ name: 'pool', time: 1000, warmupTime: 250 });
  bench.add(m.rtt.name, async () => {
    sink ^= (await pool.run('whoami', null)).threadId;
  });
  bench.add(m.rttInline.name, async () => {
    sink ^= (await inline.run('whoami', null)).threadId;
  });
  bench.add(m.rttPipelined.name, async () => {
    const all = await Promise.all(Array.from({ length: PIPELINE }, () => pool.run('whoami', null)));
    sink ^= all.length;
  });
  bench.add(m.poolOne.name, async () => {
    sink ^= (await task(pool)).digests[0] as number;
  });
  bench.add(m.poolMany.name, async () => {
    const all = await Promise.all(Array.from({ length: inflight }, () => task(pool)));
    sink ^= all.length;
  });
  bench.add(m.inlinePool.name, async () => {
    sink ^= (await task(inline)).digests[0] as number;
  });
  bench.add(
    m.inlineDirect.name,
    () => {
      sink ^= keccak256Packed(packed.data, packed.offsets)[0] as number;
    },
    { async: false },
  );
  try {
    await bench.run();
  } finally {
    await Promise.all([pool.close(), inline.close()]);
  }

  const byName = new Map(bench.tasks.map((t) => [t.name, t]));
  const rows = Object.values(m)
    .map((x) => row(byName.get(x.name), x))
    .filter((r): r is BenchRow => r !== undefined);
  const status = nativeStatus();
  rows.unshift({
    task: 'keccak implementation',
    opsPerSec: 0,
    meanMicros: 0,
    note: status.loaded ? 'native module' : `JS fallback (native not loaded: ${status.error ?? '?'})`,
  });
  // Keeps the results observable so no engine can drop the calls; the value itself means nothing.
  if (sink === -1) rows.push({ task: 'sink', opsPerSec: 0, meanMicros: 0 });
  return rows;
}

export const poolSuite: BenchSuite = { name: 'pool', run };
