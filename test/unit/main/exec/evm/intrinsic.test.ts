import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import { forkRules } from '../../../../../src/main/exec/evm/env.js';
import {
  countZeroBytes,
  floorDataGas,
  initCodeWords,
  intrinsicGas,
} from '../../../../../src/main/exec/evm/intrinsic.js';

const common = new Common({ chain: Mainnet });
const cancun = forkRules(common, Hardfork.Cancun);
const berlin = forkRules(common, Hardfork.Berlin);
const petersburg = forkRules(common, Hardfork.Petersburg);
const prague = forkRules(common, Hardfork.Prague);

const none = new Uint8Array(0);
const addr = new Uint8Array(20);
const key = new Uint8Array(32);

describe('intrinsic gas', () => {
  it('charges 21000 for a plain call and 53000 for a creation', () => {
    expect(intrinsicGas({ data: none, isCreate: false }, cancun)).toBe(21_000n);
    expect(intrinsicGas({ data: none, isCreate: true }, cancun)).toBe(53_000n);
  });

  it('prices calldata at 4 per zero byte and 16 per nonzero byte (68 before Istanbul)', () => {
    const data = Uint8Array.of(0, 1, 0, 2); // 2 zero, 2 nonzero
    expect(countZeroBytes(data)).toBe(2);
    expect(intrinsicGas({ data, isCreate: false }, cancun)).toBe(21_000n + 2n * 4n + 2n * 16n); // 21040
    expect(intrinsicGas({ data, isCreate: false }, petersburg)).toBe(21_000n + 2n * 4n + 2n * 68n); // 21144
  });

  it('adds 2 per init code word from Shanghai on (EIP-3860)', () => {
    const initCode = new Uint8Array(40).fill(0xff); // 40 nonzero bytes, 2 words
    expect(initCodeWords(40)).toBe(2n);
    expect(intrinsicGas({ data: initCode, isCreate: true }, cancun)).toBe(53_000n + 640n + 4n); // 53644
    expect(intrinsicGas({ data: initCode, isCreate: true }, berlin)).toBe(53_000n + 640n);
    expect(intrinsicGas({ data: initCode, isCreate: false }, cancun)).toBe(21_000n + 640n);
  });

  it('adds 2400 per access-list address and 1900 per storage key', () => {
    const accessList = [
      [addr, [key, key]],
      [addr, [key]],
    ] as const;
    expect(intrinsicGas({ data: none, isCreate: false, accessList }, cancun)).toBe(21_000n + 4_800n + 5_700n); // 31500
  });

  it('adds 25000 per EIP-7702 authorization', () => {
    expect(intrinsicGas({ data: none, isCreate: false, authorizationCount: 2 }, prague)).toBe(71_000n);
  });

  it('has an EIP-7623 floor of 21000 + 10 per token (zero byte 1 token, nonzero byte 4)', () => {
    const data = new Uint8Array(15);
    data.fill(7, 0, 10); // 10 nonzero, 5 zero: 45 tokens
    expect(floorDataGas(data)).toBe(21_450n);
    expect(floorDataGas(none)).toBe(21_000n);
  });
});
