// Plain value transfers applied around the EVM (src/main/exec/evm/plainTransfer.ts) must leave exactly what
// @ethereumjs/vm as shipped leaves: status, gas, logs, return data and state root, over transfers to missing,
// existing, empty and delegated accounts, precompiles, the sender itself and the coinbase, with value 0 or some.
import { describe, expect, it } from 'vitest';
import { runDifferential } from '../../../../../bench/fuzz/evmDiff.js';
import { plainTransferStats } from '../../../../../src/main/exec/evm/plainTransfer.js';

describe('plain transfers against @ethereumjs/vm as shipped', () => {
  it('agree on 40 cases of transfers and their edge cases', async () => {
    const before = plainTransferStats.applied;
    const r = await runDifferential(5000, 40, 'transfers');
    expect(r.mismatches).toEqual([]);
    expect(r.txs).toBe(160);
    // Most go around the EVM; code, precompiles and delegations through it.
    expect(plainTransferStats.applied - before).toBeGreaterThan(50);
    expect(r.succeeded).toBeGreaterThan(80);
  }, 120_000);
});
