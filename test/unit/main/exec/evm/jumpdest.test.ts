// The interpreter patches of ./jumpdest.ts and ./fastOpcodes.ts: the jump-destination analysis is reused for the
// same code array, and MSTORE/MLOAD/KECCAK256 give the EVM's answers.
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import { jumpdestCacheStats } from '../../../../../src/main/exec/evm/jumpdest.js';
import { Executor } from '../../../../../src/main/exec/evm/transition.js';
import { FlatState } from '../../../../../src/main/exec/state/flatState.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';

const emptyReader = {
  getAccount: () => undefined,
  getStorage: () => 0n,
  getCode: () => new Uint8Array(0),
};

async function executor(): Promise<Executor> {
  const common = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Cancun });
  // The patches serve @ethereumjs/evm's interpreter, which runs here only for frames tern's own does not (./interp/).
  return Executor.create({ common, state: new FlatState(emptyReader), ternInterpreter: false });
}

/** PUSH32 word, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, KECCAK256, PUSH1 32, MSTORE, PUSH1 0, MLOAD, PUSH1 64, MSTORE,
 * a JUMP over an INVALID to a JUMPDEST, then RETURN(0, 96), padded past the cache's minimum code size. */
function program(word: Uint8Array): Uint8Array {
  const body = [
    0x7f,
    ...word,
    0x60,
    0x00,
    0x52,
    0x60,
    0x20,
    0x60,
    0x00,
    0x20,
    0x60,
    0x20,
    0x52,
    0x60,
    0x00,
    0x51,
    0x60,
    0x40,
    0x52,
  ];
  const jumpAt = body.length;
  const dest = jumpAt + 4;
  body.push(0x60, dest, 0x56, 0xfe, 0x5b, 0x60, 0x60, 0x60, 0x00, 0xf3);
  while (body.length < 100) body.push(0x00);
  return Uint8Array.from(body);
}

describe('interpreter patches', () => {
  it('analyses a code array once, and MSTORE/MLOAD/KECCAK256 return what the EVM defines', async () => {
    const { evm } = await executor();
    const word = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 1) & 0xff);
    const code = program(word);
    const misses = jumpdestCacheStats.misses;
    const hits = jumpdestCacheStats.hits;
    for (let run = 0; run < 3; run++) {
      const r = await evm.runCode({ code, gasLimit: 100_000n });
      expect(r.exceptionError).toBeUndefined();
      expect(r.returnValue.subarray(0, 32)).toEqual(word);
      expect(r.returnValue.subarray(32, 64)).toEqual(keccak256(word));
      expect(r.returnValue.subarray(64, 96)).toEqual(word);
    }
    expect(jumpdestCacheStats.misses - misses).toBe(1);
    expect(jumpdestCacheStats.hits - hits).toBe(2);
  });

  it('stores small and zero words left-padded', async () => {
    const { evm } = await executor();
    for (const word of [new Uint8Array(32), Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0))]) {
      const r = await evm.runCode({ code: program(word), gasLimit: 100_000n });
      expect(r.returnValue.subarray(0, 32)).toEqual(word);
      expect(r.returnValue.subarray(64, 96)).toEqual(word);
    }
  });
});
