import type { PrecompileFunc, PrecompileInput } from '@ethereumjs/evm';
import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import type { OpForks } from '../../../../../../src/main/exec/evm/op/forks.js';
import {
  applyOpPrecompiles,
  BN256_PAIRING_MAX_INPUT_GRANITE,
  BN256_PAIRING_MAX_INPUT_JOVIAN,
  P256VERIFY_ADDRESS,
  P256VERIFY_GAS,
  p256Verify,
} from '../../../../../../src/main/exec/evm/op/precompiles.js';
import { keccak256 } from '../../../../../../src/main/native/keccak.js';

const input = (data: Uint8Array, gasLimit = 10_000n) => ({ data, gasLimit }) as unknown as PrecompileInput;
const forks = (upTo: keyof OpForks): OpForks => {
  const order: Array<keyof OpForks> = [
    'bedrock',
    'regolith',
    'canyon',
    'ecotone',
    'fjord',
    'granite',
    'holocene',
    'isthmus',
    'jovian',
  ];
  const n = order.indexOf(upTo);
  return Object.fromEntries(order.map((f, i) => [f, i <= n])) as unknown as OpForks;
};

function signed(): Uint8Array {
  const secret = p256.utils.randomSecretKey();
  const hash = keccak256(Uint8Array.of(1, 2, 3));
  const sig = p256.sign(hash, secret, { prehash: false, format: 'compact' });
  const pub = p256.getPublicKey(secret, false); // 0x04 ‖ x ‖ y
  return Uint8Array.from([...hash, ...sig, ...pub.subarray(1)]);
}

describe('RIP-7212 P256VERIFY', () => {
  it('returns 1 for a valid signature at 3450 gas', () => {
    const r = p256Verify(input(signed()));
    expect(r.executionGasUsed).toBe(P256VERIFY_GAS);
    expect(r.returnValue).toEqual(Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0)));
  });

  it('returns nothing for a wrong hash, a bad length, r = 0 or a point off the curve', () => {
    const good = signed();
    const wrongHash = good.slice();
    wrongHash[0] = (wrongHash[0] as number) ^ 1;
    const zeroR = good.slice();
    zeroR.fill(0, 32, 64);
    const offCurve = good.slice();
    offCurve[159] = (offCurve[159] as number) ^ 1;
    for (const data of [wrongHash, good.subarray(0, 159), zeroR, offCurve]) {
      const r = p256Verify(input(data));
      expect(r.returnValue.length).toBe(0);
      expect(r.executionGasUsed).toBe(P256VERIFY_GAS);
      expect(r.exceptionError).toBeUndefined();
    }
  });

  it('fails with all gas consumed below 3450 gas', () => {
    const r = p256Verify(input(signed(), 3449n));
    expect(r.exceptionError).toBeDefined();
    expect(r.executionGasUsed).toBe(3449n);
  });
});

describe('OP precompile set', () => {
  const pairing: PrecompileFunc = () => ({ returnValue: Uint8Array.of(1), executionGasUsed: 45_000n });
  const base = () =>
    new Map<string, PrecompileFunc | undefined>([['0000000000000000000000000000000000000008', pairing]]);

  it('adds P256VERIFY from Fjord only', () => {
    const ecotone = base();
    applyOpPrecompiles(ecotone, forks('ecotone'));
    expect(ecotone.has(P256VERIFY_ADDRESS)).toBe(false);
    const fjord = base();
    applyOpPrecompiles(fjord, forks('fjord'));
    expect(fjord.get(P256VERIFY_ADDRESS)).toBe(p256Verify);
  });

  it('limits bn256Pairing input from Granite, tighter from Jovian', async () => {
    const call = async (m: Map<string, PrecompileFunc | undefined>, len: number) =>
      (m.get('0000000000000000000000000000000000000008') as PrecompileFunc)(input(new Uint8Array(len), 1_000_000n));
    const fjord = base();
    applyOpPrecompiles(fjord, forks('fjord'));
    expect((await call(fjord, BN256_PAIRING_MAX_INPUT_GRANITE + 1)).exceptionError).toBeUndefined();
    const granite = base();
    applyOpPrecompiles(granite, forks('granite'));
    expect((await call(granite, BN256_PAIRING_MAX_INPUT_GRANITE)).exceptionError).toBeUndefined();
    const over = await call(granite, BN256_PAIRING_MAX_INPUT_GRANITE + 1);
    expect(over.exceptionError).toBeDefined();
    expect(over.executionGasUsed).toBe(1_000_000n);
    const jovian = base();
    applyOpPrecompiles(jovian, forks('jovian'));
    expect((await call(jovian, BN256_PAIRING_MAX_INPUT_JOVIAN)).exceptionError).toBeUndefined();
    expect((await call(jovian, BN256_PAIRING_MAX_INPUT_JOVIAN + 1)).exceptionError).toBeDefined();
  });
});
