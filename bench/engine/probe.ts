// The read probe: while blocks import, a user of the node's RPC asks for a balance and makes an eth_call about
// 20 times a second; each answer's latency is recorded. Errors count as failures (a busy node must still answer).
import type { RpcClient } from '../../src/main/common/rpc/client.js';
import { toHex as hex } from '../../src/main/primitives/bytes.js';
import { erc20BalanceOfData } from '../import/contracts.js';
import { COINBASE, ERC20_ADDRESS } from '../import/generate.js';
import { type LatencySummary, summariseLatency } from '../latency.js';

const EVERY_MS = 50;

export interface ProbeFigures {
  readonly getBalance: LatencySummary;
  readonly call: LatencySummary;
  readonly failures: number;
  /** The slowest answers of each method with when they were asked: tells a cold start from a pause mid-run. */
  readonly slowest: readonly SlowProbe[];
}

export interface SlowProbe {
  readonly method: string;
  /** The probe's position among the requests of its method (1: the first). */
  readonly index: number;
  /** When it was sent, in ms after the probe started. */
  readonly atMs: number;
  readonly latencyMs: number;
  /** The Engine API call in flight when it was sent ('' for none). */
  readonly phase: string;
}

/** Slow answers listed per method. */
const SLOWEST = 3;

function slowestOf(method: string, samples: readonly Sample[]): SlowProbe[] {
  return [...samples]
    .sort((a, b) => b.latencyMs - a.latencyMs)
    .slice(0, SLOWEST)
    .map((s) => ({ method, ...s }));
}

interface Sample {
  readonly index: number;
  readonly atMs: number;
  readonly latencyMs: number;
  readonly phase: string;
}

/** One line naming the slowest probes, e.g. `eth_call #1 at +0.05 s: 690.2 ms`. */
export function slowestNote(slowest: readonly SlowProbe[]): string {
  return slowest
    .map(
      (s) =>
        `${s.method} #${s.index} at +${(s.atMs / 1000).toFixed(2)} s${s.phase ? ` (${s.phase})` : ''}: ${s.latencyMs.toFixed(1)} ms`,
    )
    .join('; ');
}

export interface Probe {
  /** Stops probing after the requests in flight and summarises (the same answer on every call). */
  stop(): Promise<ProbeFigures>;
}

/** Starts probing: eth_getBalance of the fee recipient and eth_call of the token's balanceOf, both at `latest`. */
export function startProbe(user: RpcClient, phase: () => string = () => ''): Probe {
  const balance: Sample[] = [];
  const calls: Sample[] = [];
  let failures = 0;
  let running = true;
  const started = performance.now();
  const sent = new Map<Sample[], number>();
  const timed = async (samples: Sample[], method: string, params: unknown[]): Promise<void> => {
    const index = (sent.get(samples) ?? 0) + 1;
    sent.set(samples, index);
    const t = performance.now();
    const during = phase();
    try {
      await user.call(method, params);
      samples.push({ index, atMs: t - started, latencyMs: performance.now() - t, phase: during });
    } catch {
      failures++;
    }
  };
  const data = hex(erc20BalanceOfData(Buffer.from(COINBASE.slice(2), 'hex')));
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (!running) return;
    // The two reads are independent requests, as two users would send them; neither waits for the other.
    for (const p of [
      timed(balance, 'eth_getBalance', [COINBASE, 'latest']),
      timed(calls, 'eth_call', [{ to: ERC20_ADDRESS, input: data }, 'latest']),
    ]) {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
  }, EVERY_MS);
  let stopped: Promise<ProbeFigures> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        running = false;
        clearInterval(timer);
        await Promise.all(inFlight);
        const ms = (samples: Sample[]) => samples.map((s) => s.latencyMs);
        return {
          getBalance: summariseLatency(ms(balance)),
          call: summariseLatency(ms(calls)),
          failures,
          slowest: [...slowestOf('eth_getBalance', balance), ...slowestOf('eth_call', calls)],
        };
      })()),
  };
}
