// The opcodes whose words tern's interpreter converts without hex strings or BigInt division — MSTORE, MLOAD,
// CALLDATALOAD, KECCAK256, ADDMOD, MULMOD, ADD, SUB — run by tern and by @ethereumjs/evm's own interpreter on the
// same programs: edge words (0, 1, 2^255, 2^256 − 1, a field prime, modulus 0), memory offsets near and past what
// any frame can pay for, memory grown past its first buffer, call data that is a view into a larger buffer, the same
// modulus many times in a row, and every gas limit from nothing up to enough (so each charge runs out of gas once).
// The whole ExecResult must match, logs included: the programs log what they compute.
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccount } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { COMPUTE_CODE, computeData } from '../../../../../../bench/import/contracts.js';
import { type AsmItem, assemble } from '../../../../../../src/main/devnet/asm.js';
import { createTernEVM, interpreterStats, type TernEVM } from '../../../../../../src/main/exec/evm/interp/evm.js';
import { toHexKey } from '../../../../../../src/main/primitives/bytes.js';

const MAX = (1n << 256n) - 1n;
const P = (1n << 255n) - 19n;
const EDGE = [0n, 1n, 2n, 31n, 1n << 64n, 1n << 255n, P - 1n, P, MAX - 1n, MAX];
const TO = new Address(Uint8Array.from({ length: 20 }, (_, i) => i + 1));
const CALLER = new Address(Uint8Array.from({ length: 20 }, (_, i) => 0x40 + i));

async function evmWith(code: Uint8Array, tern: boolean): Promise<TernEVM> {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
  const sm = new MerkleStateManager({ common });
  await sm.putAccount(TO, createAccount({ nonce: 1n, balance: 0n }));
  await sm.putCode(TO, code);
  await sm.putAccount(CALLER, createAccount({ nonce: 1n, balance: 10n ** 20n }));
  const blockchain = {
    getBlock: async () => ({ hash: () => new Uint8Array(32) }),
    putBlock: async () => {},
    shallowCopy() {
      return this;
    },
  };
  const evm = createTernEVM({ common, stateManager: sm, blockchain });
  evm.ternInterpreter = tern;
  return evm;
}

/** Runs `code` on both interpreters with each call data and gas limit and expects the same ExecResult. */
async function compare(code: Uint8Array, calls: ReadonlyArray<{ data: Uint8Array; gas: bigint }>): Promise<number> {
  const tern = await evmWith(code, true);
  const ejs = await evmWith(code, false);
  const block = createBlock(
    { header: { number: 10n, gasLimit: 30_000_000n, baseFeePerGas: 7n } },
    { common: tern.common },
  );
  const before = interpreterStats.tern;
  let ok = 0;
  for (const { data, gas } of calls) {
    const opts = { to: TO, caller: CALLER, data, gasLimit: gas, block };
    const [a, b] = [(await tern.runCall(opts)).execResult, (await ejs.runCall(opts)).execResult];
    const view = (r: typeof a) => ({
      error: r.exceptionError?.error,
      gasUsed: r.executionGasUsed,
      returnValue: toHexKey(r.returnValue),
      logs: (r.logs ?? []).map(([, topics, d]) => [topics.map(toHexKey), toHexKey(d)]),
    });
    expect(view(a), `data ${toHexKey(data)} gas ${gas}`).toEqual(view(b));
    if (a.exceptionError === undefined) ok++;
  }
  expect(interpreterStats.tern - before).toBeGreaterThanOrEqual(calls.length);
  return ok;
}

const words = (...vs: bigint[]): Uint8Array => {
  const out = new Uint8Array(32 * vs.length);
  vs.forEach((v, i) => {
    out.set(Buffer.from(v.toString(16).padStart(64, '0'), 'hex'), 32 * i);
  });
  return out;
};

/** Call data `words` placed inside a larger buffer, so the frame sees a view with a byte offset. */
const inside = (data: Uint8Array): Uint8Array => {
  const buffer = new Uint8Array(data.length + 13).fill(0xee);
  buffer.set(data, 7);
  return buffer.subarray(7, 7 + data.length);
};

// Call data [offset, value, length]: MSTORE value at offset, MLOAD it back, KECCAK256 of [offset, offset + length),
// CALLDATALOAD at 0x41 (31 bytes of data, then padding) and at 0x60 (past the end), added; LOG3 of the three results;
// returns memory's first word.
const MEMORY: AsmItem[] = [
  ['PUSH', 0x20],
  'CALLDATALOAD',
  ['PUSH', 0],
  'CALLDATALOAD',
  'MSTORE',
  ['PUSH', 0x40],
  'CALLDATALOAD',
  ['PUSH', 0],
  'CALLDATALOAD',
  'KECCAK256',
  ['PUSH', 0],
  'CALLDATALOAD',
  'MLOAD',
  ['PUSH', 0x41],
  'CALLDATALOAD',
  ['PUSH', 0x60],
  'CALLDATALOAD',
  'ADD',
  ['PUSH', 0],
  ['PUSH', 0],
  'LOG3',
  ['PUSH', 0x20],
  ['PUSH', 0],
  'RETURN',
];

// Call data [a, b, c, n]: n times acc = MULMOD(acc, b, c), s = ADDMOD(acc, a, c), d = SUB(s, a), e = ADD(d, b), each
// round logged (LOG3 of n, acc and e); acc starts at a.
const MODULAR: AsmItem[] = [
  ['PUSH', 0x60],
  'CALLDATALOAD', // [n]
  ['PUSH', 0],
  'CALLDATALOAD', // [n, acc]
  ['label', 'loop'],
  'DUP2',
  'ISZERO',
  ['ref', 'done'],
  'JUMPI',
  ['PUSH', 0x40],
  'CALLDATALOAD',
  ['PUSH', 0x20],
  'CALLDATALOAD',
  'DUP3',
  'MULMOD', // [n, acc, acc']
  'SWAP1',
  'POP', // [n, acc']
  ['PUSH', 0x40],
  'CALLDATALOAD',
  ['PUSH', 0],
  'CALLDATALOAD',
  'DUP3',
  'ADDMOD', // [n, acc, s]
  ['PUSH', 0],
  'CALLDATALOAD',
  'SWAP1',
  'SUB', // [n, acc, s - a]
  ['PUSH', 0x20],
  'CALLDATALOAD',
  'ADD', // [n, acc, e]
  'DUP2',
  'DUP4',
  ['PUSH', 0],
  ['PUSH', 0],
  'LOG3', // [n, acc]
  'SWAP1',
  ['PUSH', 1],
  'SWAP1',
  'SUB',
  'SWAP1', // [n - 1, acc]
  ['ref', 'loop'],
  'JUMP',
  ['label', 'done'],
  'STOP',
];

describe("tern's interpreter on the opcodes it converts words for, against @ethereumjs/evm's", () => {
  it('MSTORE, MLOAD, KECCAK256 and CALLDATALOAD at edge offsets and values, memory grown past its first buffer', async () => {
    const code = assemble(MEMORY);
    const offsets = [0n, 1n, 31n, 990n, 1000n, 4000n, 2n ** 31n - 64n, 2n ** 31n - 31n, 2n ** 31n, 2n ** 32n, MAX];
    const lengths = [0n, 1n, 32n, 33n, 136n, 137n, 300n, MAX];
    const calls: Array<{ data: Uint8Array; gas: bigint }> = [];
    for (const offset of offsets)
      for (const value of [0n, 1n, 0xffn << 248n, 1n << 64n, MAX])
        for (const length of lengths) {
          const data = words(offset, value, length);
          calls.push({ data, gas: 10_000_000n }, { data: inside(data), gas: 10_000_000n });
        }
    const ok = await compare(code, calls);
    expect(ok).toBeGreaterThan(100);
  }, 120_000);

  it('runs out of gas at each charge of the memory program exactly as ethereumjs does', async () => {
    const code = assemble(MEMORY);
    const calls: Array<{ data: Uint8Array; gas: bigint }> = [];
    const data = words(1000n, MAX, 40n);
    for (let gas = 0n; gas <= 2_400n; gas++) calls.push({ data, gas });
    const ok = await compare(code, calls);
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThan(calls.length);
  }, 120_000);

  it('ADDMOD, MULMOD, ADD and SUB over edge words, the same modulus many times in a row', async () => {
    const code = assemble(MODULAR);
    const calls: Array<{ data: Uint8Array; gas: bigint }> = [];
    for (const c of [0n, 1n, 2n, 3n, (1n << 192n) + 1n, (1n << 200n) - 1n, P, 1n << 255n, MAX])
      for (const a of EDGE)
        for (const b of [0n, 1n, 2n, P + 1n, MAX]) calls.push({ data: words(a, b, c, 6n), gas: 1_000_000n });
    const ok = await compare(code, calls);
    expect(ok).toBe(calls.length);
  }, 120_000);

  it('the compute benchmark contract: seeds at the edges, OOG at every gas limit of a short run', async () => {
    const calls: Array<{ data: Uint8Array; gas: bigint }> = [];
    for (const seed of EDGE) for (const n of [1, 2, 7, 40]) calls.push({ data: computeData(n, seed), gas: 1_000_000n });
    // Short of gas in the loop, and around the final SSTORE (a fresh slot: 22,100 gas).
    for (let gas = 0n; gas <= 700n; gas++) calls.push({ data: computeData(2, P), gas });
    for (let gas = 22_300n; gas <= 23_000n; gas++) calls.push({ data: computeData(2, P), gas });
    const ok = await compare(COMPUTE_CODE, calls);
    expect(ok).toBeGreaterThan(EDGE.length * 4);
    expect(ok).toBeLessThan(calls.length);
  }, 120_000);
});
