// Fee arithmetic of the state transition: effective gas price (EIP-1559), a transaction's blob gas, the up-front
// balance a sender must hold, and the refund cap (EIP-3529). Pure bigint math. The blob base fee and excess blob
// gas (EIP-4844's fake_exponential) are primitives/block/fees.ts's, shared with header validation and building.
import { GAS_PER_BLOB } from '../../primitives/block/fees.js';

/** Cancun's BLOB_BASE_FEE_UPDATE_FRACTION (EIP-4844). */
export const BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN = 3_338_477n;
/** Prague's BLOB_BASE_FEE_UPDATE_FRACTION (EIP-7691). */
export const BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE = 5_007_716n;
/** Largest value a 256-bit word holds. */
export const MAX_UINT256 = (1n << 256n) - 1n;
/** Refund cap divisor before EIP-3529 (London). */
export const REFUND_QUOTIENT = 2n;
/** Refund cap divisor from EIP-3529 (London) on. */
export const REFUND_QUOTIENT_EIP3529 = 5n;

/** The fee fields of any transaction type: legacy/2930 carry gasPrice, 1559 and later the fee caps. */
export interface FeeFields {
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
}

/** max_fee_per_gas (gasPrice for legacy and 2930 transactions). */
export function feeCap(tx: FeeFields): bigint {
  return tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
}

/** max_priority_fee_per_gas (gasPrice for legacy and 2930 transactions). */
export function tipCap(tx: FeeFields): bigint {
  return tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n;
}

/**
 * The price per gas the sender pays: min(tip + baseFee, feeCap) once a base fee exists (London), the gas price
 * before. The caller has checked feeCap ≥ baseFee.
 */
export function effectiveGasPrice(tx: FeeFields, baseFee: bigint | undefined): bigint {
  if (baseFee === undefined) return tx.gasPrice ?? tx.maxFeePerGas ?? 0n;
  const cap = feeCap(tx);
  return minBigint(tipCap(tx) + baseFee, cap);
}

/** The smaller of two bigints (Math.min takes numbers only). */
export function minBigint(a: bigint, b: bigint): bigint {
  if (a < b) return a;
  return b;
}

/** What the block's beneficiary earns per gas: the effective price less the burnt base fee. */
export function effectivePriorityFee(tx: FeeFields, baseFee: bigint | undefined): bigint {
  const price = effectiveGasPrice(tx, baseFee);
  return baseFee === undefined ? price : price - baseFee;
}

/** Blob gas a transaction with this many blobs consumes. */
export function blobGas(blobCount: number): bigint {
  return GAS_PER_BLOB * BigInt(blobCount);
}

/**
 * The balance a sender must hold to be allowed to send: gasLimit · feeCap + value (+ blobGas · maxFeePerBlobGas),
 * geth's buyGas check.
 */
export function requiredBalance(
  gasLimit: bigint,
  tx: FeeFields,
  value: bigint,
  txBlobGas: bigint,
  maxFeePerBlobGas: bigint,
): bigint {
  return gasLimit * feeCap(tx) + value + txBlobGas * maxFeePerBlobGas;
}

/** The gas refund granted: the refund counter, capped at gasUsed / 5 (EIP-3529) or gasUsed / 2 before London. */
export function cappedRefund(gasUsed: bigint, refundCounter: bigint, london: boolean): bigint {
  return minBigint(refundCounter, gasUsed / (london ? REFUND_QUOTIENT_EIP3529 : REFUND_QUOTIENT));
}
