// The operator fee (Isthmus on; deposits never pay it). Isthmus: gas * scalar / 1e6 + constant; Jovian
// multiplies the scalar by 100 instead of dividing by 1e6, to allow higher fees.
import { atLeast, type OpFork } from './forks.js';

export interface OperatorFeeParams {
  /** uint32 */
  operatorFeeScalar: bigint;
  /** uint64 */
  operatorFeeConstant: bigint;
}

/**
 * The fee for `gas`: the gas limit when buying gas up front, and for the actual charge the gas the
 * transaction used (the exec-engine spec's refund rule). Zero before Isthmus.
 */
export function operatorFee(gas: bigint, p: OperatorFeeParams, fork: OpFork): bigint {
  if (!atLeast(fork, 'isthmus')) return 0n;
  if (atLeast(fork, 'jovian')) return gas * p.operatorFeeScalar * 100n + p.operatorFeeConstant;
  return (gas * p.operatorFeeScalar) / 1_000_000n + p.operatorFeeConstant;
}
