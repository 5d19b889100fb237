// The worker side of the gossip-validation bench (bench/gossip.ts): the same BlockValidator, run in a piscina
// thread on transferred message bytes, returning the outcome as the coordinator would need it.
import { BlockValidator } from '../src/main/node/p2p/blockValidator.js';
import { BENCH_CFG, BENCH_NOW_MS, BENCH_SIGNER } from './gossipFixture.js';

export function validate(data: Uint8Array): { result: string; transactions: number } {
  const v = new BlockValidator(
    BENCH_CFG,
    { timestampThresholdMs: 60_000 },
    { signer: () => BENCH_SIGNER, now: () => BENCH_NOW_MS },
  );
  const out = v.validate(4, data);
  return { result: out.result, transactions: out.result === 'accept' ? out.payload.transactions.length : 0 };
}
