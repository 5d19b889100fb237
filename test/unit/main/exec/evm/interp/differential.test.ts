// Differential execution (bench/fuzz/evmDiff.ts, `interp` profile) of contracts written in the opcodes of tern's
// own interpreter, called directly, from contracts on @ethereumjs/evm's interpreter (CALL, STATICCALL, ...) and
// with barely enough gas: tern's executor against @ethereumjs/vm as shipped (own file: the reference must run in a
// process tern has not patched yet).
import { describe, expect, it } from 'vitest';
import { runDifferential } from '../../../../../../bench/fuzz/evmDiff.js';
import { interpreterStats } from '../../../../../../src/main/exec/evm/interp/evm.js';

describe("differential execution of tern's interpreter against @ethereumjs/vm as shipped", () => {
  it('agrees on 30 random cases of its opcodes (nested, static, short of gas)', async () => {
    const before = interpreterStats.tern;
    const r = await runDifferential(5000, 30, 'interp');
    expect(r.mismatches).toEqual([]);
    expect(r.succeeded).toBeGreaterThan(20);
    // The frames really ran on tern's interpreter.
    expect(interpreterStats.tern - before).toBeGreaterThan(60);
  }, 120_000);
});
