// The logger's per-call cost: a disabled level (should be a no-op call), and an enabled line in each format
// written to a discarding stream, against pino writing its own JSON to the same stream as the baseline.

import { pino } from 'pino';
import { Bench, type FnReturnedObject, type Task } from 'tinybench';
import { createLogger, type LogFormat } from '../src/main/common/logger/index.js';
import type { BenchRow, BenchSuite } from './suite.js';

const BATCH = 1000;
const CTX = { block: 12_345_678, hash: new Uint8Array(32).fill(0xab), peers: 17, reason: 'new head' };

function perCall(work: () => void): () => FnReturnedObject {
  return () => {
    const start = performance.now();
    work();
    const elapsed = performance.now() - start;
    return { overriddenDuration: elapsed / BATCH, overriddenIterationCost: elapsed };
  };
}

function row(task: Task): BenchRow {
  const r = task.result;
  if (r.state !== 'completed' && r.state !== 'aborted-with-statistics') {
    return { task: task.name, opsPerSec: 0, meanMicros: 0, note: r.state === 'errored' ? r.error.message : r.state };
  }
  const meanMs = r.latency.mean;
  return {
    task: task.name,
    opsPerSec: meanMs > 0 ? 1000 / meanMs : 0,
    meanMicros: meanMs * 1000,
    note: `±${r.latency.rme.toFixed(1)}%, ${r.latency.samplesCount} samples of ${BATCH}`,
  };
}

async function run(): Promise<BenchRow[]> {
  let bytes = 0;
  const discard = {
    write: (line: string) => {
      bytes += line.length;
    },
  };
  const bench = new Bench({ name: 'logger', time: 1000, warmupTime: 250 });

  const quiet = createLogger({ level: 'info', format: 'terminal', stream: discard }).logger.child('bench');
  bench.add(
    'debug() below the level',
    perCall(() => {
      for (let i = 0; i < BATCH; i++) quiet.debug('Imported new chain segment', CTX);
    }),
    { async: false },
  );
  for (const format of ['terminal', 'logfmt', 'json'] satisfies LogFormat[]) {
    const log = createLogger({ level: 'info', format, stream: discard }).logger.child('bench');
    bench.add(
      `info() ${format}, 4 fields`,
      perCall(() => {
        for (let i = 0; i < BATCH; i++) log.info('Imported new chain segment', CTX);
      }),
      { async: false },
    );
  }
  // pino formatting its own JSON (Uint8Array as an object of indices): the engine's cost without our formats.
  const raw = pino({ base: null }, discard).child({ module: 'bench' });
  const rawCtx = { ...CTX, hash: `0x${'ab'.repeat(32)}` };
  bench.add(
    'pino JSON baseline, 4 fields',
    perCall(() => {
      for (let i = 0; i < BATCH; i++) raw.info(rawCtx, 'Imported new chain segment');
    }),
    { async: false },
  );

  await bench.run();
  const rows = bench.tasks.map(row);
  if (bytes === -1) rows.push({ task: 'sink', opsPerSec: 0, meanMicros: 0 });
  return rows;
}

export const loggerSuite: BenchSuite = { name: 'logger', run };
