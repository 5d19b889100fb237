// Base fee (EIP-1559) and blob gas (EIP-4844, EIP-7691) arithmetic for header validation and block building.
import type { BlobParams } from '../chainConfig.js';

export const ELASTICITY_MULTIPLIER = 2n;
export const BASE_FEE_CHANGE_DENOMINATOR = 8n;
export const GAS_PER_BLOB = 131072n;
export const MIN_BLOB_BASE_FEE = 1n;

export interface BaseFeeParams {
  readonly elasticity: bigint;
  readonly denominator: bigint;
}

export const ETHEREUM_BASE_FEE_PARAMS: BaseFeeParams = {
  elasticity: ELASTICITY_MULTIPLIER,
  denominator: BASE_FEE_CHANGE_DENOMINATOR,
};

/** The base fee of the child of a block with these gas figures (geth's CalcBaseFee for a London parent). */
export function nextBaseFee(
  parent: { gasLimit: bigint; gasUsed: bigint; baseFeePerGas: bigint },
  p: BaseFeeParams = ETHEREUM_BASE_FEE_PARAMS,
): bigint {
  const target = parent.gasLimit / p.elasticity;
  if (parent.gasUsed === target) return parent.baseFeePerGas;
  if (parent.gasUsed > target) {
    const delta = (parent.baseFeePerGas * (parent.gasUsed - target)) / target / p.denominator;
    return parent.baseFeePerGas + (delta > 1n ? delta : 1n);
  }
  const delta = (parent.baseFeePerGas * (target - parent.gasUsed)) / target / p.denominator;
  const next = parent.baseFeePerGas - delta;
  return next > 0n ? next : 0n;
}

/** e ** (numerator / denominator) · factor, approximated by the EIP-4844 Taylor series. */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i += 1n;
  }
  return output / denominator;
}

/** The blob base fee of a block with this excess blob gas (EIP-4844; the update fraction from the blob schedule). */
export function blobBaseFee(excessBlobGas: bigint, params: Pick<BlobParams, 'baseFeeUpdateFraction'>): bigint {
  return fakeExponential(MIN_BLOB_BASE_FEE, excessBlobGas, params.baseFeeUpdateFraction);
}

/** The excess blob gas of the child of a block (EIP-4844 with the target from the blob schedule). */
export function nextExcessBlobGas(
  parent: { excessBlobGas?: bigint | undefined; blobGasUsed?: bigint | undefined },
  params: BlobParams,
): bigint {
  const targetGas = BigInt(params.target) * GAS_PER_BLOB;
  const sum = (parent.excessBlobGas ?? 0n) + (parent.blobGasUsed ?? 0n);
  return sum < targetGas ? 0n : sum - targetGas;
}
