// Differential execution (bench/fuzz/evmDiff.ts, `full` profile) of random contracts that call, create and
// self-destruct, every frame on tern's interpreter and every transaction's own call into code on tern's top-level
// path, against @ethereumjs/vm as shipped (own file: the reference must run in a process tern has not patched yet).
import { describe, expect, it } from 'vitest';
import { runDifferential } from '../../../../../../bench/fuzz/evmDiff.js';
import { interpreterStats } from '../../../../../../src/main/exec/evm/interp/evm.js';

describe("differential execution of tern's calls and creations against @ethereumjs/vm as shipped", () => {
  it('agrees on 30 random cases with calls, creations and SELFDESTRUCT in every frame', async () => {
    const before = { ...interpreterStats };
    const r = await runDifferential(8000, 30, 'full');
    expect(r.mismatches).toEqual([]);
    expect(interpreterStats.ethereumjs).toBe(before.ethereumjs);
    expect(interpreterStats.topCalls - before.topCalls).toBeGreaterThan(60);
  }, 120_000);
});
