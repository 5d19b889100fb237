// Tx-pool admission's signature recovery: on the calling thread against the sender pool, by batch size. Two
// figures per size: the latency of one batch, and the coordinator's own time per batch (event-loop active time:
// packing, posting and unpacking for the pool; the whole recovery inline). They set MIN_POOLED_SENDERS in
// src/main/exec/txpool/admission.ts.
import { performance } from 'node:perf_hooks';
import { privateKeyToAccount } from 'viem/accounts';
import { inlineAdmission, PooledAdmission } from '../src/main/exec/txpool/admission.js';
import type { BenchRow, BenchSuite } from './suite.js';

const SIZES = [1, 2, 4, 8, 16, 64];
const ROUNDS = 200;

async function signed(n: number): Promise<Uint8Array[]> {
  const key = privateKeyToAccount(`0x${'11'.repeat(32)}`);
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const raw = await key.signTransaction({
      chainId: 1,
      type: 'eip1559',
      nonce: i,
      gas: 21000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1n,
      to: '0x00000000000000000000000000000000000000aa',
      value: 1n,
    });
    out.push(Uint8Array.from(Buffer.from(raw.slice(2), 'hex')));
  }
  return out;
}

/** Mean wall and event-loop-active microseconds per call of `fn`, over `rounds` calls one after another. */
async function measure(fn: () => Promise<unknown>, rounds: number): Promise<{ wall: number; busy: number }> {
  const elu = performance.eventLoopUtilization();
  const t = performance.now();
  for (let i = 0; i < rounds; i++) await fn();
  const wall = ((performance.now() - t) * 1000) / rounds;
  const busy = (performance.eventLoopUtilization(elu).active * 1000) / rounds;
  return { wall, busy };
}

async function run(): Promise<BenchRow[]> {
  const pooled = new PooledAdmission({ minPooledSenders: 1 });
  const txs = await signed(Math.max(...SIZES));
  const rows: BenchRow[] = [];
  try {
    // Warm both threads of the pool and the JIT.
    await Promise.all(Array.from({ length: 8 }, () => pooled.senders(txs)));
    for (const n of SIZES) {
      const batch = txs.slice(0, n);
      const rounds = Math.max(20, Math.floor(ROUNDS / Math.sqrt(n)));
      const here = await measure(() => inlineAdmission.senders(batch), rounds);
      const pool = await measure(() => pooled.senders(batch), rounds);
      rows.push({
        task: `recover ${n} signature${n > 1 ? 's' : ''}, inline`,
        opsPerSec: (n * 1e6) / here.wall,
        meanMicros: here.wall,
        note: `coordinator ${here.busy.toFixed(0)} µs a batch`,
      });
      rows.push({
        task: `recover ${n} signature${n > 1 ? 's' : ''}, sender pool`,
        opsPerSec: (n * 1e6) / pool.wall,
        meanMicros: pool.wall,
        note: `coordinator ${pool.busy.toFixed(0)} µs a batch`,
      });
    }
  } finally {
    await pooled.close();
  }
  return rows;
}

export const admissionSuite: BenchSuite = { name: 'admission', run };
