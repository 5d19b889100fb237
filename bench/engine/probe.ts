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
}

export interface Probe {
  /** Stops probing after the requests in flight and summarises (the same answer on every call). */
  stop(): Promise<ProbeFigures>;
}

/** Starts probing: eth_getBalance of the fee recipient and eth_call of the token's balanceOf, both at `latest`. */
export function startProbe(user: RpcClient): Probe {
  const balance: number[] = [];
  const calls: number[] = [];
  let failures = 0;
  let running = true;
  const timed = async (samples: number[], method: string, params: unknown[]): Promise<void> => {
    const t = performance.now();
    try {
      await user.call(method, params);
      samples.push(performance.now() - t);
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
        return { getBalance: summariseLatency(balance), call: summariseLatency(calls), failures };
      })()),
  };
}
