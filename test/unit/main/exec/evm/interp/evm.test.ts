// tern's frame interpreter against @ethereumjs/evm's, frame by frame: random contracts drawn from the opcodes tern
// implements (bench/fuzz/evmDiff.ts, `interp` profile) are called with random calldata and gas — plenty of it, or
// barely any, so every kind of step runs out of gas somewhere — on two EVMs over the same pre-state, one running
// frames on tern's interpreter and one on ethereumjs's. The whole ExecResult must match, down to the kind of the
// exceptional halt, the refund counter and the storage written.
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, bytesToHex, createAccount } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { generateCase } from '../../../../../../bench/fuzz/evmDiff.js';
import { createTernEVM, interpreterStats, type TernEVM } from '../../../../../../src/main/exec/evm/interp/evm.js';
import { keccak256 } from '../../../../../../src/main/native/keccak.js';
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
  // Every block has its own hash, so BLOCKHASH reads show which block was asked for.
  const blockchain = {
    getBlock: async (n: number) => ({ hash: () => keccak256(bigintToMinimalBytes(BigInt(n) + 1n)) }),
    putBlock: async () => {},
    shallowCopy() {
      return this;
    },
  };
  const evm = createTernEVM({ common, stateManager: sm, blockchain });
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

async function compareSeeds(hardfork: Hardfork, from: number, count: number, profile: 'interp' | 'full' = 'interp') {
  const before = interpreterStats.tern;
  const errors = new Set<string>();
  let calls = 0;
  for (let seed = from; seed < from + count; seed++) {
    const c = generateCase(seed, 4, profile);
    const a = await side(hardfork, c, true);
    const b = await side(hardfork, c, false);
    const common = a.evm.common;
    const block = createBlock(
      {
        header: {
          number: 100n,
          timestamp: 1_700_000_000n,
          gasLimit: 60_000_000n,
          baseFeePerGas: 7n,
          coinbase: c.pre[3]?.address,
          mixHash: keccak256(Uint8Array.of(seed)),
          ...(common.isActivatedEIP(4844) ? { excessBlobGas: BigInt(seed) * 3_000_000n } : {}),
        },
      },
      { common },
    );
    // The four interpreter-profile contracts (in the full profile all six, which call, create and self-destruct),
    // each called several times (later calls see earlier writes).
    for (const target of c.pre.slice(4, profile === 'interp' ? 8 : 10)) {
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
          ...(k % 2 === 1
            ? { blobVersionedHashes: [bytesToHex(keccak256(Uint8Array.of(k))), bytesToHex(block.hash())] }
            : {}),
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
    // Every account (value moved by calls, creations and SELFDESTRUCT; nonces bumped by CREATE).
    expect(await a.sm.getStateRoot(), `seed ${seed} state root`).toEqual(await b.sm.getStateRoot());
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

  it('gives the same ExecResult and state on random programs with calls, creations and SELFDESTRUCT', async () => {
    const r = await compareSeeds(Hardfork.Prague, 300, 16, 'full');
    expect(r.ternFrames).toBeGreaterThan(r.calls);
    for (const kind of ['out of gas', 'stack underflow', 'revert', 'static state change'])
      expect([...r.errors], kind).toContain(kind);
    const cancun = await compareSeeds(Hardfork.Cancun, 400, 5, 'full');
    expect(cancun.ternFrames).toBeGreaterThan(cancun.calls);
  }, 180_000);

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

describe("tern's frame interpreter: account reads as ethereumjs treats them", () => {
  /** Code that stores EXTCODESIZE, EXTCODEHASH, the first EXTCODECOPY word and BALANCE of `who` from slot `at`. */
  function reads(who: Uint8Array, at: number): number[] {
    const p20 = [0x73, ...who];
    return [
      ...[...p20, 0x3b, 0x60, at, 0x55], // EXTCODESIZE → slot at
      ...[...p20, 0x3f, 0x60, at + 1, 0x55], // EXTCODEHASH → slot at+1
      ...[0x60, 0x20, 0x5f, 0x5f, ...p20, 0x3c, 0x5f, 0x51, 0x60, at + 2, 0x55], // EXTCODECOPY(0, 0, 32), MLOAD 0
      ...[...p20, 0x31, 0x60, at + 3, 0x55], // BALANCE → slot at+3
    ];
  }

  it('reads delegation designators as code, EOF code as EF00, empty accounts as hash zero', async () => {
    const reader = fromHex('0x00000000000000000000000000000000000c0de1');
    const delegated = fromHex('0x00000000000000000000000000000000000000d1');
    const eof = fromHex('0x00000000000000000000000000000000000000e0');
    const empty = fromHex('0x00000000000000000000000000000000000000e1');
    const designator = Uint8Array.from([0xef, 0x01, 0x00, ...reader]);
    const code = Uint8Array.from([...reads(delegated, 0), ...reads(eof, 4), ...reads(empty, 8), 0x00]);
    const results = [];
    for (const tern of [true, false]) {
      const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
      const sm = new MerkleStateManager({ common });
      await sm.putAccount(new Address(reader), createAccount({ nonce: 1n, balance: 0n }));
      await sm.putCode(new Address(reader), code);
      await sm.putAccount(new Address(delegated), createAccount({ nonce: 1n, balance: 77n }));
      await sm.putCode(new Address(delegated), designator);
      await sm.putAccount(new Address(eof), createAccount({ nonce: 1n, balance: 5n }));
      await sm.putCode(new Address(eof), Uint8Array.from([0xef, 0x00, 0x01, 0x02]));
      await sm.putAccount(new Address(empty), createAccount({ nonce: 0n, balance: 0n }));
      const evm = createTernEVM({ common, stateManager: sm });
      evm.ternInterpreter = tern;
      const before = interpreterStats.tern;
      const r = await evm.runCall({ to: new Address(reader), gasLimit: 1_000_000n });
      expect(interpreterStats.tern - before).toBe(tern ? 1 : 0);
      const slots: string[] = [];
      for (let s = 0; s < 12; s++) {
        const key = new Uint8Array(32);
        key[31] = s;
        slots.push(toHexKey(await sm.getStorage(new Address(reader), key)));
      }
      results.push({ ...describeResult(r.execResult), slots });
    }
    expect(results[0]).toEqual(results[1]);
    const slots = results[0]?.slots as string[];
    expect(slots[0]).toBe('0x17'); // the 23-byte designator, not the delegate's code
    expect(slots[1]).toBe(toHexKey(keccak256(designator)));
    expect(slots[3]).toBe('0x4d');
    expect(slots[4]).toBe('0x02'); // EOF code reads as the two bytes EF00
    expect(slots[5]).toBe(toHexKey(keccak256(Uint8Array.of(0xef, 0x00))));
    expect(slots[6]).toBe(`0xef${'00'.repeat(31)}`); // EF00 then zeros
    expect(slots[9]).toBe('0x'); // an empty account's hash is zero (storage of zero is absent)
  });
});

describe("tern's frame interpreter: the frame's own balance around sub-calls", () => {
  const A = fromHex('0x00000000000000000000000000000000000000a1');
  const B = fromHex('0x00000000000000000000000000000000000000b1'); // STOP
  const C = fromHex('0x00000000000000000000000000000000000000c1'); // REVERT
  const D = fromHex('0x00000000000000000000000000000000000000d1'); // sends 3 wei to E (run by DELEGATECALL)
  const E = fromHex('0x00000000000000000000000000000000000000e1');
  /** CALL(gas 65535, to, value) with no input or output, its status dropped. */
  const call = (to: Uint8Array, value: number) => [
    0x5f,
    0x5f,
    0x5f,
    0x5f,
    0x61,
    value >> 8,
    value & 0xff,
    0x73,
    ...to,
    0x61,
    0xff,
    0xff,
    0xf1,
    0x50,
  ];
  const store = (slot: number) => [0x60, slot, 0x55];

  it('answers SELFBALANCE and BALANCE(ADDRESS) as ethereumjs does: refreshed after each successful sub-call', async () => {
    const code = Uint8Array.from([
      ...[0x47, ...store(0)], // SELFBALANCE at the start: 100
      ...call(B, 5),
      ...[0x47, ...store(1)], // after sending 5: 95
      ...[0x30, 0x31, ...store(2)], // BALANCE(ADDRESS): 95
      ...call(C, 7), // reverted: nothing moved
      ...[0x47, ...store(3)],
      ...call(B, 1000), // more than the balance: fails before any frame
      ...[0x47, ...store(4)],
      ...[0x5f, 0x5f, 0x5f, 0x5f, 0x73, ...D, 0x61, 0xff, 0xff, 0xf4, 0x50], // DELEGATECALL D: A sends 3 to E
      ...[0x47, ...store(5)],
      0x00,
    ]);
    const results = [];
    for (const tern of [true, false]) {
      const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
      const sm = new MerkleStateManager({ common });
      await sm.putAccount(new Address(A), createAccount({ nonce: 1n, balance: 100n }));
      await sm.putCode(new Address(A), code);
      for (const [who, c] of [
        [B, [0x00]],
        [C, [0x5f, 0x5f, 0xfd]],
        [D, [...call(E, 3).slice(0, -1), 0x00]],
      ] as const) {
        await sm.putAccount(new Address(who), createAccount({ nonce: 1n, balance: 0n }));
        await sm.putCode(new Address(who), Uint8Array.from(c));
      }
      const evm = createTernEVM({ common, stateManager: sm });
      evm.ternInterpreter = tern;
      const before = interpreterStats.tern;
      const r = await evm.runCall({ to: new Address(A), gasLimit: 1_000_000n });
      expect(interpreterStats.tern - before).toBe(tern ? 4 : 0); // A, B, C, D (E has no code)
      const slots: string[] = [];
      for (let s = 0; s < 6; s++) {
        const key = new Uint8Array(32);
        key[31] = s;
        slots.push(toHexKey(await sm.getStorage(new Address(A), key)));
      }
      results.push({ ...describeResult(r.execResult), slots, root: toHexKey(await sm.getStateRoot()) });
    }
    expect(results[0]).toEqual(results[1]);
    expect(results[0]?.error).toBeUndefined();
    expect(results[0]?.slots).toEqual(['0x64', '0x5f', '0x5f', '0x5f', '0x5f', '0x5c']);
  });
});
