// keccak-256 of 32-byte inputs (trie keys, storage slots): the native module, one call per hash and one call per
// 1024 packed inputs, against the `keccak` package and @noble/hashes (our JS fallback), all in one run.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { Bench, type FnReturnedObject, type Task } from 'tinybench';
import { nativeFunction, nativeStatus } from '../src/main/native/index.js';
import { keccak256, keccak256Batch, packInputs } from '../src/main/native/keccak.js';
import type { BenchRow, BenchSuite } from './suite.js';

type CreateKeccak = (algorithm: 'keccak256') => { update(data: Buffer): { digest(): Buffer } };
const createKeccak = createRequire(import.meta.url)('keccak') as CreateKeccak;

const BATCH = 1024;
const INPUT_LEN = 32;
/** Native batch must beat the `keccak` package by this factor in hashes/s. */
const TARGET_RATIO = 5;

const NAMES = {
  nativeSingle: `keccak256 ${INPUT_LEN}B native single`,
  nativeSingleBuffer: `keccak256 ${INPUT_LEN}B native single, N-API Buffer`,
  nativeBatch: `keccak256 ${INPUT_LEN}B native batch(${BATCH})`,
  nativeBatchPacking: `keccak256 ${INPUT_LEN}B keccak256Batch(${BATCH}) + pack`,
  keccakPkg: `keccak256 ${INPUT_LEN}B keccak package`,
  noble: `keccak256 ${INPUT_LEN}B @noble/hashes (JS fallback)`,
} as const;

// Every task does BATCH hashes per iteration and reports the mean time per hash, so rows compare per hash and
// sub-microsecond calls are timed over a span the clock can resolve.
function perHash(work: () => void): () => FnReturnedObject {
  return () => {
    const start = performance.now();
    work();
    const elapsed = performance.now() - start;
    return { overriddenDuration: elapsed / BATCH, overriddenIterationCost: elapsed };
  };
}

function row(task: Task | undefined, note: string): BenchRow | undefined {
  if (task === undefined) return undefined;
  const r = task.result;
  if (r.state !== 'completed' && r.state !== 'aborted-with-statistics') {
    return { task: task.name, opsPerSec: 0, meanMicros: 0, note: r.state === 'errored' ? r.error.message : r.state };
  }
  const meanMs = r.latency.mean;
  return {
    task: task.name,
    opsPerSec: meanMs > 0 ? 1000 / meanMs : 0,
    meanMicros: meanMs * 1000,
    note: `${note}±${r.latency.rme.toFixed(1)}%, ${r.latency.samplesCount} samples of ${BATCH}`,
  };
}

async function run(): Promise<BenchRow[]> {
  const inputs = Array.from({ length: BATCH }, () => new Uint8Array(randomBytes(INPUT_LEN)));
  // The keccak package takes Buffers only; wrap once, outside the timed loop.
  const buffers = inputs.map((x) => Buffer.from(x.buffer, x.byteOffset, x.length));
  const { data, offsets } = packInputs(inputs);
  const single = nativeFunction('keccak256');
  const scratch = nativeFunction('keccak256Scratch');
  const packed = nativeFunction('keccak256Packed');
  let sink = 0;

  const bench = new Bench({ name: 'keccak', time: 1000, warmupTime: 250 });
  if (scratch !== undefined) {
    // The exported keccak256: short inputs go through a scratch array, so N-API allocates nothing.
    bench.add(
      NAMES.nativeSingle,
      perHash(() => {
        for (const x of inputs) sink ^= keccak256(x)[0] as number;
      }),
      { async: false },
    );
  }
  if (single !== undefined) {
    bench.add(
      NAMES.nativeSingleBuffer,
      perHash(() => {
        for (const x of inputs) sink ^= single(x)[0] as number;
      }),
      { async: false },
    );
  }
  if (packed !== undefined) {
    bench.add(
      NAMES.nativeBatch,
      perHash(() => {
        sink ^= packed(data, offsets)[0] as number;
      }),
      { async: false },
    );
    bench.add(
      NAMES.nativeBatchPacking,
      perHash(() => {
        sink ^= keccak256Batch(inputs)[0] as number;
      }),
      { async: false },
    );
  }
  bench.add(
    NAMES.keccakPkg,
    perHash(() => {
      for (const x of buffers) sink ^= createKeccak('keccak256').update(x).digest()[0] as number;
    }),
    { async: false },
  );
  bench.add(
    NAMES.noble,
    perHash(() => {
      for (const x of inputs) sink ^= keccak_256(x)[0] as number;
    }),
    { async: false },
  );
  await bench.run();

  const byName = new Map(bench.tasks.map((t) => [t.name, t]));
  const pkgRow = row(byName.get(NAMES.keccakPkg), '');
  const batchRow = row(byName.get(NAMES.nativeBatch), '');
  let ratioNote = '';
  if (pkgRow !== undefined && batchRow !== undefined && pkgRow.opsPerSec > 0) {
    const ratio = batchRow.opsPerSec / pkgRow.opsPerSec;
    const verdict = ratio >= TARGET_RATIO ? 'met' : 'NOT MET';
    ratioNote = `${ratio.toFixed(1)}× the keccak package (target ≥ ${TARGET_RATIO}×: ${verdict}); `;
  }
  const rows = [
    row(byName.get(NAMES.nativeSingle), 'keccak256() export; '),
    row(byName.get(NAMES.nativeSingleBuffer), 'binding.keccak256, napi_create_buffer per call; '),
    row(byName.get(NAMES.nativeBatch), ratioNote),
    row(byName.get(NAMES.nativeBatchPacking), 'keccak256Batch(inputs): packInputs + native; '),
    pkgRow,
    row(byName.get(NAMES.noble), ''),
  ].filter((r): r is BenchRow => r !== undefined);

  const status = nativeStatus();
  if (!status.loaded) {
    rows.unshift({ task: 'native module', opsPerSec: 0, meanMicros: 0, note: `not loaded: ${status.error ?? '?'}` });
  }
  // Keeps the digests observable so no engine can drop the calls; the value itself means nothing.
  if (sink === -1) rows.push({ task: 'sink', opsPerSec: 0, meanMicros: 0 });
  return rows;
}

export const keccakSuite: BenchSuite = { name: 'keccak', run };
