// tern's frame interpreter against @ethereumjs/evm's, frame by frame: random contracts drawn from the opcodes tern
// implements (bench/fuzz/evmDiff.ts, `interp` profile) are called with random calldata and gas — plenty of it, or
// barely any, so every kind of step runs out of gas somewhere — on two EVMs over the same pre-state, one running
// frames on tern's interpreter and one on ethereumjs's. The whole ExecResult must match, down to the kind of the
// exceptional halt, the refund counter and the storage written.
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccount } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { generateCase } from '../../../../../../bench/fuzz/evmDiff.js';
import { createTernEVM, interpreterStats, type TernEVM } from '../../../../../../src/main/exec/evm/interp/evm.js';
import { bigintToMinimalBytes, fromHex, toHexKey } from '../../../../../../src/main/primitives/bytes.js';

async function side(
  hardfork: Hardfork,
  c: ReturnType<typeof generateCase>,
  tern: boolean,
): Promise<{ evm: TernEVM; sm: MerkleStateManager }> {
  const common = new Common({ chain: Mainnet, hardfork });
  const sm = new MerkleStateManager({ common });
  for (const a of c.pre) {
    const addr = new Address(a.address);
    await sm.putAccount(addr, createAccount({ nonce: a.nonce, balance: a.balance }));
    if (a.code.length > 0) await sm.putCode(addr, a.code);
    for (const [slot, v] of a.storage) await sm.putStorage(addr, fromHex(slot), bigintToMinimalBytes(v));
  }
  const evm = createTernEVM({ common, stateManager: sm });
  evm.ternInterpreter = tern;
  return { evm, sm };
}

function describeResult(r: Awaited<ReturnType<TernEVM['runCall']>>['execResult']) {
  return {
    error: r.exceptionError?.error,
    executionGasUsed: r.executionGasUsed,
    gas: r.gas,
    gasRefund: r.gasRefund,
    returnValue: toHexKey(r.returnValue),
    logs: (r.logs ?? []).map(([a, t, d]) => [toHexKey(a), t.map(toHexKey), toHexKey(d)]),
    selfdestruct: r.selfdestruct?.size ?? 0,
    createdAddresses: r.createdAddresses?.size ?? 0,
  };
}

async function compareSeeds(hardfork: Hardfork, from: number, count: number) {
  const before = interpreterStats.tern;
  const errors = new Set<string>();
  let calls = 0;
  for (let seed = from; seed < from + count; seed++) {
    const c = generateCase(seed, 4, 'interp');
    const a = await side(hardfork, c, true);
    const b = await side(hardfork, c, false);
    const common = a.evm.common;
    const block = createBlock(
      { header: { number: 100n, timestamp: 1_700_000_000n, gasLimit: 60_000_000n, baseFeePerGas: 7n } },
      { common },
    );
    // The four interpreter-profile contracts, each called several times (later calls see earlier writes).
    for (const target of c.pre.slice(4, 8)) {
      for (let k = 0; k < 6; k++) {
        const tx = c.txs[k % c.txs.length]?.tx;
        const opts = {
          to: new Address(target.address),
          caller: new Address(c.pre[k % 3]?.address as Uint8Array),
          data: tx?.data ?? new Uint8Array(0),
          gasLimit: k % 2 === 0 ? BigInt(2_000 + ((seed * 7919 + k * 104_729) % 40_000)) : 3_000_000n,
          value: BigInt(k * 3),
          gasPrice: 9n,
          isStatic: k === 5,
          block,
        };
        const ra = await a.evm.runCall({ ...opts });
        const rb = await b.evm.runCall({ ...opts });
        calls++;
        if (rb.execResult.exceptionError !== undefined)
          errors.add(rb.execResult.exceptionError.error.split(' at ')[0] ?? '');
        expect(describeResult(ra.execResult), `seed ${seed} contract ${toHexKey(target.address)} call ${k}`).toEqual(
          describeResult(rb.execResult),
        );
      }
      for (let slot = 0; slot < 8; slot++) {
        const key = new Uint8Array(32);
        key[31] = slot;
        const addr = new Address(target.address);
        expect(toHexKey(await a.sm.getStorage(addr, key)), `seed ${seed} slot ${slot}`).toBe(
          toHexKey(await b.sm.getStorage(addr, key)),
        );
      }
    }
  }
  return { calls, ternFrames: interpreterStats.tern - before, errors };
}

describe("tern's frame interpreter against @ethereumjs/evm's", () => {
  it('gives the same ExecResult on random programs of its opcodes (Prague)', async () => {
    const r = await compareSeeds(Hardfork.Prague, 1, 40);
    // Most frames must really have run on tern's interpreter, and the halts must cover the kinds it models.
    expect(r.ternFrames).toBeGreaterThan(r.calls * 0.6);
    for (const kind of [
      'out of gas',
      'stack underflow',
      'invalid JUMP',
      'revert',
      'invalid opcode',
      'static state change',
    ])
      expect([...r.errors], kind).toContain(kind);
  }, 120_000);

  it('gives the same ExecResult under Cancun', async () => {
    const r = await compareSeeds(Hardfork.Cancun, 100, 10);
    expect(r.ternFrames).toBeGreaterThan(r.calls * 0.6);
  }, 60_000);

  it('leaves frames under a step listener to ethereumjs (tracers see its steps)', async () => {
    const c = generateCase(7, 4, 'interp');
    const a = await side(Hardfork.Prague, c, true);
    const target = c.pre[4] as (typeof c.pre)[number];
    const call = { to: new Address(target.address), gasLimit: 1_000_000n, data: new Uint8Array(0) };
    // Without a listener this contract's frame runs on tern's interpreter ...
    const first = interpreterStats.tern;
    await a.evm.runCall({ ...call });
    expect(interpreterStats.tern).toBeGreaterThan(first);
    // ... with one, on ethereumjs's.
    const steps: number[] = [];
    a.evm.events.on('step', (e: { pc: number }) => {
      steps.push(e.pc);
    });
    const before = { ...interpreterStats };
    await a.evm.runCall({ ...call });
    expect(interpreterStats.tern).toBe(before.tern);
    expect(interpreterStats.ethereumjs).toBeGreaterThan(before.ethereumjs);
    expect(steps.length).toBeGreaterThan(0);
  });

  it('leaves frames of unmodelled forks to ethereumjs', async () => {
    const before = interpreterStats.tern;
    await compareSeeds(Hardfork.Shanghai, 200, 2);
    expect(interpreterStats.tern).toBe(before);
  }, 60_000);
});
