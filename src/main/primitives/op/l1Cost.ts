// The L1 data fee of a non-deposit transaction, by fork (exec-engine.md "L1-Cost fees"), with the l1GasUsed
// value op-geth reports in receipts for that fork. Inputs are the transaction's full consensus encoding.
//   Bedrock/Regolith: (dataGas + overhead) * l1BaseFee * scalar / 1e6
//   Ecotone:          dataGas * (16 * l1BaseFee * baseFeeScalar + blobBaseFee * blobBaseFeeScalar) / 16e6
//   Fjord on:         estimatedSize * (16 * l1BaseFee * baseFeeScalar + blobBaseFee * blobBaseFeeScalar) / 1e12
import { flzCompressLen } from './fastlz.js';
import { atLeast, type OpFork } from './forks.js';

export type L1CostFork = 'bedrock' | 'regolith' | 'ecotone' | 'fjord';

export interface L1CostParams {
  l1BaseFee: bigint;
  /** Bedrock/Regolith */
  overhead?: bigint;
  /** Bedrock/Regolith, scaled by 1e6 */
  scalar?: bigint;
  /** Ecotone on */
  baseFeeScalar?: bigint;
  l1BlobBaseFee?: bigint;
  blobBaseFeeScalar?: bigint;
}

export interface L1CostResult {
  fee: bigint;
  gasUsed: bigint;
}

/** What the cost functions read from a transaction; computing it once per transaction is the expensive part. */
export interface RollupCostData {
  zeroes: bigint;
  ones: bigint;
  fastLzSize: bigint;
}

const TX_DATA_ZERO_GAS = 4n;
const TX_DATA_NON_ZERO_GAS = 16n;
/** Pre-Regolith charged 68 extra non-zero bytes for the signature the encoding lacked. */
const BEDROCK_SIGNATURE_BYTES = 68n;
export const L1_COST_INTERCEPT = -42_585_600n;
export const L1_COST_FASTLZ_COEF = 836_500n;
export const MIN_TRANSACTION_SIZE = 100n;
const MIN_TRANSACTION_SIZE_SCALED = MIN_TRANSACTION_SIZE * 1_000_000n;

export function rollupCostData(raw: Uint8Array): RollupCostData {
  let zeroes = 0;
  for (const b of raw) if (b === 0) zeroes++;
  return { zeroes: BigInt(zeroes), ones: BigInt(raw.length - zeroes), fastLzSize: BigInt(flzCompressLen(raw)) };
}

/** The cost function that applies at an OP fork (Canyon/Delta price like Regolith; Granite on like Fjord). */
export function l1CostForkOf(fork: OpFork | L1CostFork): L1CostFork {
  if (fork === 'bedrock') return 'bedrock';
  if (fork === 'regolith' || fork === 'ecotone' || fork === 'fjord') return fork;
  if (atLeast(fork, 'fjord')) return 'fjord';
  if (atLeast(fork, 'ecotone')) return 'ecotone';
  return 'regolith';
}

/** Fjord's linear-regression estimate of the compressed size, scaled by 1e6, floored at 100 bytes. */
export function estimatedDASizeScaled(fastLzSize: bigint): bigint {
  const size = L1_COST_INTERCEPT + L1_COST_FASTLZ_COEF * fastLzSize;
  return size < MIN_TRANSACTION_SIZE_SCALED ? MIN_TRANSACTION_SIZE_SCALED : size;
}

/** Fjord's estimated compressed size in bytes (Jovian's DA usage estimate). */
export function estimatedDASize(fastLzSize: bigint): bigint {
  return estimatedDASizeScaled(fastLzSize) / 1_000_000n;
}

function calldataGas(cd: RollupCostData, fork: L1CostFork): bigint {
  const ones = fork === 'bedrock' ? cd.ones + BEDROCK_SIGNATURE_BYTES : cd.ones;
  return cd.zeroes * TX_DATA_ZERO_GAS + ones * TX_DATA_NON_ZERO_GAS;
}

function isEmpty(cd: RollupCostData): boolean {
  return cd.zeroes === 0n && cd.ones === 0n && cd.fastLzSize === 0n;
}

/** The L1 data gas of a transaction before any overhead: l1GasUsed for Regolith..Fjord, minus overhead for Bedrock. */
export function l1DataGasFromCostData(cd: RollupCostData, fork: OpFork | L1CostFork): bigint {
  const f = l1CostForkOf(fork);
  if (f === 'fjord') return (estimatedDASizeScaled(cd.fastLzSize) * TX_DATA_NON_ZERO_GAS) / 1_000_000n;
  return calldataGas(cd, f);
}

export function l1DataGas(raw: Uint8Array, fork: OpFork | L1CostFork): bigint {
  return l1DataGasFromCostData(rollupCostData(raw), fork);
}

/**
 * The L1 fee and the receipt's l1GasUsed. Empty cost data (no bytes: an RPC call without a transaction, or a
 * deposit) is free, as op-geth charges nothing there.
 */
export function l1CostFromCostData(cd: RollupCostData, p: L1CostParams, fork: OpFork | L1CostFork): L1CostResult {
  if (isEmpty(cd)) return { fee: 0n, gasUsed: 0n };
  const f = l1CostForkOf(fork);
  if (f === 'bedrock' || f === 'regolith') {
    const gasUsed = calldataGas(cd, f) + (p.overhead ?? 0n);
    return { fee: (gasUsed * p.l1BaseFee * (p.scalar ?? 0n)) / 1_000_000n, gasUsed };
  }
  const perByte = p.l1BaseFee * 16n * (p.baseFeeScalar ?? 0n) + (p.l1BlobBaseFee ?? 0n) * (p.blobBaseFeeScalar ?? 0n);
  if (f === 'ecotone') {
    const gasUsed = calldataGas(cd, f);
    return { fee: (gasUsed * perByte) / 16_000_000n, gasUsed };
  }
  const size = estimatedDASizeScaled(cd.fastLzSize);
  return { fee: (size * perByte) / 1_000_000_000_000n, gasUsed: (size * TX_DATA_NON_ZERO_GAS) / 1_000_000n };
}

export function l1Cost(raw: Uint8Array, params: L1CostParams, fork: OpFork | L1CostFork): L1CostResult {
  return l1CostFromCostData(rollupCostData(raw), params, fork);
}

/** Jovian's per-transaction DA footprint (receipt blobGasUsed); deposits have none. */
export function txDAFootprint(fastLzSize: bigint, daFootprintGasScalar: bigint): bigint {
  return estimatedDASize(fastLzSize) * daFootprintGasScalar;
}

/**
 * Jovian's block DA footprint (the header's blobGasUsed): the sum of txDAFootprint over the block's
 * non-deposit transactions, given as their consensus encodings.
 */
export function blockDAFootprint(rawTxs: readonly Uint8Array[], daFootprintGasScalar: bigint): bigint {
  let total = 0n;
  for (const raw of rawTxs) {
    if (raw[0] === 0x7e) continue;
    total += estimatedDASize(BigInt(flzCompressLen(raw)));
  }
  return total * daFootprintGasScalar;
}
