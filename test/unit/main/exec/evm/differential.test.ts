// Differential execution (bench/fuzz/evmDiff.ts): random contracts and transactions executed by tern's executor and
// by @ethereumjs/vm as shipped must give the same status, gas used, logs and return data per transaction and the
// same state root. A CI-sized run; `npm run fuzz:evm` runs many more seeds.
import { describe, expect, it } from 'vitest';
import { runDifferential } from '../../../../../bench/fuzz/evmDiff.js';

describe('differential execution against @ethereumjs/vm as shipped', () => {
  it('agrees on 30 random cases', async () => {
    const r = await runDifferential(1, 30);
    expect(r.mismatches).toEqual([]);
    // The generator must exercise real execution, not only failures.
    expect(r.txs).toBe(120);
    expect(r.succeeded).toBeGreaterThan(30);
    expect(r.logs).toBeGreaterThan(10);
  }, 120_000);
});
