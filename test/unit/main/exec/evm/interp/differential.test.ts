// Differential execution (bench/fuzz/evmDiff.ts, `interp` and `full` profiles) of random contracts — in the `full`
// profile calling, creating and self-destructing — called directly, from each other (CALL, STATICCALL, ...) and with
// barely enough gas: tern's executor (its interpreter, its top-level call path) against @ethereumjs/vm as shipped
// (own file: the reference must run in a process tern has not patched yet).
import { describe, expect, it } from 'vitest';
import { runDifferential } from '../../../../../../bench/fuzz/evmDiff.js';
import { interpreterStats } from '../../../../../../src/main/exec/evm/interp/evm.js';

describe("differential execution of tern's interpreter against @ethereumjs/vm as shipped", () => {
  it('agrees on 30 random cases of its opcodes (nested, static, short of gas)', async () => {
    const before = interpreterStats.tern;
    const topBefore = interpreterStats.topCalls;
    const r = await runDifferential(5000, 30, 'interp');
    expect(r.mismatches).toEqual([]);
    expect(r.succeeded).toBeGreaterThan(20);
    // The frames really ran on tern's interpreter.
    expect(interpreterStats.tern - before).toBeGreaterThan(60);
    // Most transactions' own calls took the top-level path of tern's own.
    expect(interpreterStats.topCalls - topBefore).toBeGreaterThan(60);
  }, 120_000);
});
