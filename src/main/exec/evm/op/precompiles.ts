// OP-Stack precompile changes: RIP-7212 P256VERIFY at 0x100 from Fjord (3450 gas), and input-size limits that make
// the heavy curve precompiles fail (consuming all gas) on oversized input: bn256Pairing from Granite, the EIP-2537
// MSM and pairing precompiles from Isthmus, all four tightened by Jovian (specs/protocol/{fjord,granite,isthmus,
// jovian}/exec-engine.md).
import { EVMError, type ExecResult, type PrecompileFunc, type PrecompileInput } from '@ethereumjs/evm';
import { p256 } from '@noble/curves/nist.js';
import { applyNativeBls } from '../blsNative.js';
import type { OpForks } from './forks.js';

/** Precompile addresses as @ethereumjs/evm keys them: 40 lowercase hex digits, no prefix. */
export const P256VERIFY_ADDRESS = '0000000000000000000000000000000000000100';
const BN256_PAIRING = '0000000000000000000000000000000000000008';
const BLS_G1_MSM = '000000000000000000000000000000000000000c';
const BLS_G2_MSM = '000000000000000000000000000000000000000e';
const BLS_PAIRING = '000000000000000000000000000000000000000f';

/** RIP-7212 gas (Fjord). */
export const P256VERIFY_GAS = 3450n;
export const BN256_PAIRING_MAX_INPUT_GRANITE = 112_687;
export const BN256_PAIRING_MAX_INPUT_JOVIAN = 81_984;
export const BLS_G1_MSM_MAX_INPUT_ISTHMUS = 513_760;
export const BLS_G2_MSM_MAX_INPUT_ISTHMUS = 488_448;
export const BLS_PAIRING_MAX_INPUT_ISTHMUS = 235_008;
export const BLS_G1_MSM_MAX_INPUT_JOVIAN = 288_960;
export const BLS_G2_MSM_MAX_INPUT_JOVIAN = 278_784;
export const BLS_PAIRING_MAX_INPUT_JOVIAN = 156_672;

const P256_N = p256.Point.CURVE().n;
const SUCCESS = new Uint8Array(32);
SUCCESS[31] = 1;

function failAll(gasLimit: bigint): ExecResult {
  return {
    returnValue: new Uint8Array(0),
    executionGasUsed: gasLimit,
    exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
  };
}

function toBigint(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`);
}

/**
 * RIP-7212: input hash(32) ‖ r(32) ‖ s(32) ‖ x(32) ‖ y(32). Returns 32 bytes of 1 for a valid signature, nothing
 * otherwise (wrong length, out-of-range r or s, a public key off the curve, or a failed verification).
 */
export function p256Verify(input: PrecompileInput): ExecResult {
  if (input.gasLimit < P256VERIFY_GAS) return failAll(input.gasLimit);
  const fail: ExecResult = { returnValue: new Uint8Array(0), executionGasUsed: P256VERIFY_GAS };
  const data = input.data;
  if (data.length !== 160) return fail;
  const r = toBigint(data.subarray(32, 64));
  const s = toBigint(data.subarray(64, 96));
  if (r <= 0n || r >= P256_N || s <= 0n || s >= P256_N) return fail;
  try {
    const point = p256.Point.fromAffine({ x: toBigint(data.subarray(96, 128)), y: toBigint(data.subarray(128, 160)) });
    point.assertValidity();
    const ok = p256.verify(data.subarray(32, 96), data.subarray(0, 32), point.toBytes(false), {
      lowS: false,
      prehash: false,
      format: 'compact',
    });
    return ok ? { returnValue: SUCCESS, executionGasUsed: P256VERIFY_GAS } : fail;
  } catch {
    return fail;
  }
}

/** Wraps a precompile so that input longer than `max` bytes fails and consumes all gas given. */
export function limitInput(inner: PrecompileFunc, max: number): PrecompileFunc {
  return (input) => (input.data.length > max ? failAll(input.gasLimit) : inner(input));
}

/**
 * Applies the OP changes to the precompile map the EVM built for the current Ethereum hardfork (in place). The
 * map is rebuilt by @ethereumjs/evm on every hardfork change, so this runs after each one.
 */
export function applyOpPrecompiles(map: Map<string, PrecompileFunc | undefined>, forks: OpForks): void {
  applyNativeBls(map); // BLS12_G1ADD / BLS12_G2ADD through @chainsafe/blst (../blsNative.ts), Isthmus on
  if (forks.fjord) map.set(P256VERIFY_ADDRESS, p256Verify);
  const limit = (address: string, max: number) => {
    const inner = map.get(address);
    if (inner !== undefined) map.set(address, limitInput(inner, max));
  };
  if (forks.jovian) {
    limit(BN256_PAIRING, BN256_PAIRING_MAX_INPUT_JOVIAN);
    limit(BLS_G1_MSM, BLS_G1_MSM_MAX_INPUT_JOVIAN);
    limit(BLS_G2_MSM, BLS_G2_MSM_MAX_INPUT_JOVIAN);
    limit(BLS_PAIRING, BLS_PAIRING_MAX_INPUT_JOVIAN);
    return;
  }
  if (forks.granite) limit(BN256_PAIRING, BN256_PAIRING_MAX_INPUT_GRANITE);
  if (forks.isthmus) {
    limit(BLS_G1_MSM, BLS_G1_MSM_MAX_INPUT_ISTHMUS);
    limit(BLS_G2_MSM, BLS_G2_MSM_MAX_INPUT_ISTHMUS);
    limit(BLS_PAIRING, BLS_PAIRING_MAX_INPUT_ISTHMUS);
  }
}
