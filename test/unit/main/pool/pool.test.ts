import { setTimeout as sleep } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { TernError } from '../../../../src/main/common/errors.js';
import { packInputs } from '../../../../src/main/native/keccak.js';
import { inlinePool } from '../../../../src/main/pool/inline.js';
import type { TaskMapOf, WorkerPool } from '../../../../src/main/pool/interface.js';
import { PiscinaPool } from '../../../../src/main/pool/piscina.js';
import { workerPath } from '../../../../src/main/pool/workerPath.js';
import * as keccakTasks from '../../../../src/workers/keccak.js';

type KeccakTasks = TaskMapOf<typeof keccakTasks>;

interface Shape {
  threads?: number;
  maxQueue?: number;
}

const IMPLEMENTATIONS: [string, (shape: Shape) => WorkerPool<KeccakTasks>, boolean][] = [
  ['inline', (s) => inlinePool(keccakTasks, s.maxQueue === undefined ? {} : { maxQueue: s.maxQueue }), false],
  ['piscina', (s) => new PiscinaPool<KeccakTasks>('keccak', { threads: 2, idleTimeoutMs: 1000, ...s }), true],
];

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function patterned(n: number, seed: number): Uint8Array[] {
  return Array.from({ length: n }, (_, i) =>
    Uint8Array.from({ length: (i * 37 + seed) % 300 }, (_, j) => (i * 7 + j * 13 + seed) & 255),
  );
}

/** Settles whatever can settle in a few event-loop turns, then reports whether `p` did. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await sleep(20);
  return done;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TernError);
    return (err as TernError).code;
  }
  throw new Error('expected a rejection');
}

describe.each(IMPLEMENTATIONS)('WorkerPool: %s', (_kind, make, pooled) => {
  const open: WorkerPool<KeccakTasks>[] = [];
  const create = (shape: Shape = {}): WorkerPool<KeccakTasks> => {
    const pool = make(shape);
    open.push(pool);
    return pool;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
  });

  it('hashes the known vectors', async () => {
    const pool = create();
    const { digests } = await pool.run('keccakBatch', packInputs([new Uint8Array(0), text('abc')]));
    expect(hex(digests.subarray(0, 32))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex(digests.subarray(32, 64))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
  });

  it('hashes a large batch like the reference, digests in a buffer of their own', async () => {
    const pool = create();
    const inputs = patterned(20_000, 1);
    const packed = packInputs(inputs);
    const { digests } = await pool.run('keccakBatch', packed);
    expect(digests.length).toBe(32 * inputs.length);
    expect(digests.buffer.byteLength).toBe(digests.length);
    for (let i = 0; i < inputs.length; i += 97) {
      expect(hex(digests.subarray(32 * i, 32 * i + 32))).toBe(hex(keccak_256(inputs[i] as Uint8Array)));
    }
  });

  it('returns no digests for an empty batch', async () => {
    const pool = create();
    expect((await pool.run('keccakBatch', packInputs([]))).digests.length).toBe(0);
    expect(
      (await pool.run('keccakBatch', { data: new Uint8Array(0), offsets: new Uint32Array(0) })).digests.length,
    ).toBe(0);
  });

  it('reports task errors as {ok:false} with their code, and run rejects with a TernError', async () => {
    const pool = create();
    const decreasing = { data: new Uint8Array(4), offsets: Uint32Array.of(0, 3, 2) };
    const result = await pool.runResult('keccakBatch', decreasing);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('INVALID_OFFSETS');
      expect(result.error.message).toMatch(/offsets\[2\]/);
    }
    const pastEnd = { data: new Uint8Array(4), offsets: Uint32Array.of(0, 5) };
    expect(await codeOf(pool.run('keccakBatch', pastEnd))).toBe('INVALID_OFFSETS');
    const wrongType = { data: [1, 2, 3] as unknown as Uint8Array, offsets: Uint32Array.of(0, 3) };
    expect(await codeOf(pool.run('keccakBatch', wrongType))).toBe('INVALID_INPUT');
    // The pool still works afterwards.
    expect((await pool.run('keccakBatch', packInputs([text('abc')]))).digests.length).toBe(32);
  });

  it('transfers listed buffers (the caller loses them) and copies the rest', async () => {
    const pool = create();
    const kept = packInputs([text('abc')]);
    await pool.run('keccakBatch', kept);
    expect(kept.data.length).toBe(3);
    const given = packInputs([text('abc')]);
    const { digests } = await pool.run('keccakBatch', given, { transfer: [given.data.buffer as ArrayBuffer] });
    expect(hex(digests)).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    expect(given.data.buffer.byteLength).toBe(0);
    expect(given.offsets.length).toBe(2);
  });

  it('rejects at once with ABORTED when the signal is already aborted', async () => {
    const pool = create();
    const result = await pool.runResult('whoami', null, { signal: AbortSignal.abort() });
    expect(result.ok ? 'ok' : result.error.code).toBe('ABORTED');
  });

  it('aborts a running task', async () => {
    const pool = create();
    await pool.run('whoami', null); // a thread is up, so the next task starts at once
    const ac = new AbortController();
    const started = Date.now();
    const running = pool.run('sleep', { ms: 3_000 }, { signal: ac.signal });
    await sleep(50);
    ac.abort(new Error('enough'));
    expect(await codeOf(running)).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(2_000);
    // The pool recovers (the pooled one replaces the terminated thread).
    expect((await pool.run('keccakBatch', packInputs([text('abc')]))).digests.length).toBe(32);
  });

  it('aborts a queued task without disturbing the one running', async () => {
    const pool = create({ threads: 1, maxQueue: 4 });
    await pool.run('whoami', null);
    const running = pool.run('sleep', { ms: 200 });
    const ac = new AbortController();
    const queued = pool.run('whoami', null, { signal: ac.signal });
    ac.abort();
    expect(await codeOf(queued)).toBe('ABORTED');
    await expect(running).resolves.toHaveProperty('threadId');
  });

  it('applies back-pressure: run waits for a slot instead of failing, whenReady resolves when one frees', async () => {
    const pool = create({ threads: 1, maxQueue: 1 });
    expect(pool.capacity).toBe(2);
    await pool.run('whoami', null);
    await pool.whenReady(); // idle: at once
    const order: number[] = [];
    const runs = [0, 1, 2, 3].map((i) => pool.run('sleep', { ms: 60 }).then(() => order.push(i)));
    expect(pool.queueSize).toBeGreaterThanOrEqual(2);
    const ready = pool.whenReady();
    expect(await settled(ready)).toBe(false);
    await Promise.all(runs);
    await ready;
    expect(order).toEqual([0, 1, 2, 3]);
    expect(pool.queueSize).toBe(0);
  });

  it('close(): in-flight work completes, queued and new work rejects with POOL_CLOSED', async () => {
    const pool = create({ threads: 1, maxQueue: 8 });
    await pool.run('whoami', null);
    const inFlight = pool.run('sleep', { ms: 150 });
    const queued = pool.run('whoami', null);
    const parkedBehind = Array.from({ length: 10 }, () => pool.run('whoami', null));
    await sleep(20);
    const closing = pool.close();
    expect(await codeOf(queued)).toBe('POOL_CLOSED');
    for (const p of parkedBehind) expect(await codeOf(p)).toBe('POOL_CLOSED');
    await expect(inFlight).resolves.toHaveProperty('threadId');
    await closing;
    expect(await codeOf(pool.run('whoami', null))).toBe('POOL_CLOSED');
    await pool.close(); // idempotent
    await pool.whenReady(); // does not hang on a closed pool
  });

  if (pooled) {
    it('runs tasks on worker threads, in parallel across threads', async () => {
      const pool = create({ threads: 2 });
      expect(pool.threads).toBe(2);
      const { threadId: worker } = await pool.run('whoami', null);
      expect(worker).not.toBe(threadId);
      const started = Date.now();
      const [a, b] = await Promise.all([pool.run('sleep', { ms: 500 }), pool.run('sleep', { ms: 500 })]);
      expect(a.threadId).not.toBe(b.threadId);
      expect([a.threadId, b.threadId]).not.toContain(threadId);
      expect(Date.now() - started).toBeLessThan(950);
    });

    it('reports a task that does not exist as WORKER_FAILED', async () => {
      const pool = create();
      const result = await pool.runResult('nope' as 'whoami', null);
      expect(result.ok ? 'ok' : result.error.code).toBe('WORKER_FAILED');
    });
  } else {
    it('runs tasks on the calling thread', async () => {
      const pool = create();
      expect(pool.threads).toBe(1);
      expect((await pool.run('whoami', null)).threadId).toBe(threadId);
    });

    it('reports a task that does not exist as UNKNOWN_TASK', async () => {
      const pool = create();
      const result = await pool.runResult('nope' as 'whoami', null);
      expect(result.ok ? 'ok' : result.error.code).toBe('UNKNOWN_TASK');
    });
  }
});

describe('workerPath', () => {
  it('finds the compiled keccak task module', () => {
    expect(workerPath('keccak')).toMatch(/dist[/\\]src[/\\]workers[/\\]keccak\.js$/);
  });

  it('says to build when a worker module is missing', () => {
    expect(() => workerPath('no-such-worker')).toThrow(/npm run build/);
  });
});

describe('PiscinaPool: minThreads', () => {
  const open: PiscinaPool<KeccakTasks>[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
  });
  const pair = async (pool: PiscinaPool<KeccakTasks>): Promise<number[]> => {
    const ran = await Promise.all([pool.run('sleep', { ms: 100 }), pool.run('sleep', { ms: 100 })]);
    return ran.map((r) => r.threadId).sort((a, b) => a - b);
  };

  it('keeps minThreads threads past the idle timeout (no thread ends and is re-spawned between tasks)', async () => {
    const pool = new PiscinaPool<KeccakTasks>('keccak', { threads: 2, minThreads: 2, idleTimeoutMs: 20 });
    open.push(pool);
    const first = await pair(pool);
    await sleep(300);
    expect(await pair(pool)).toEqual(first);
  });

  it('ends a thread beyond minThreads once idle for idleTimeoutMs (the default minThreads of 1)', async () => {
    const pool = new PiscinaPool<KeccakTasks>('keccak', { threads: 2, idleTimeoutMs: 20 });
    open.push(pool);
    const first = await pair(pool);
    await sleep(300);
    // The second thread ended; the next pair runs on the first and on a new one.
    const second = await pair(pool);
    expect(new Set([...first, ...second]).size).toBe(3);
  });

  it('refuses minThreads outside 1..threads', () => {
    expect(() => new PiscinaPool<KeccakTasks>('keccak', { threads: 2, minThreads: 3 })).toThrow(RangeError);
    expect(() => new PiscinaPool<KeccakTasks>('keccak', { threads: 2, minThreads: 0 })).toThrow(RangeError);
  });

  it('hands a thread tasksPerThread tasks at once (four 300 ms sleeps on one thread overlap)', async () => {
    expect(() => new PiscinaPool<KeccakTasks>('keccak', { threads: 1, tasksPerThread: 0 })).toThrow(RangeError);
    const pool = new PiscinaPool<KeccakTasks>('keccak', { threads: 1, maxQueue: 8, tasksPerThread: 4 });
    open.push(pool);
    await pool.run('whoami', null);
    const t = performance.now();
    const runs = await Promise.all([1, 2, 3, 4].map(() => pool.run('sleep', { ms: 300 })));
    // One at a time they would take 1.2 s; all four were on the thread together.
    expect(performance.now() - t).toBeLessThan(1000);
    expect(new Set(runs.map((r) => r.threadId)).size).toBe(1);
  });
});
