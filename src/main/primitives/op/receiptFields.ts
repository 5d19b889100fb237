// The OP fields op-geth adds to eth_getTransactionReceipt for non-deposit transactions. op-geth derives them
// from the block's L1-info deposit calldata (not from state), picking the format by fork and, in a fork's
// activation block, by the calldata's selector; deposits instead show depositNonce/depositReceiptVersion.
import { TernError } from '../errors.js';
import { atLeast, type OpFork } from './forks.js';
import {
  type L1CostFork,
  type L1CostParams,
  l1CostFromCostData,
  type RollupCostData,
  txDAFootprint,
} from './l1Cost.js';
import { L1_INFO_SELECTORS } from './l1Info.js';

const qty = (n: bigint) => `0x${n.toString(16)}`;

export interface L1GasParams extends L1CostParams {
  costFork: L1CostFork;
  operatorFeeScalar?: bigint;
  operatorFeeConstant?: bigint;
  /** Jovian calldata only */
  daFootprintGasScalar?: bigint;
}

function get(b: Uint8Array, at: number, width: number): bigint {
  let v = 0n;
  for (let i = at; i < at + width; i++) v = (v << 8n) | BigInt(b[i] as number);
  return v;
}

const hasSelector = (data: Uint8Array, s: Uint8Array) => data.length >= 4 && s.every((b, i) => data[i] === b);

function bad(message: string): never {
  throw new TernError('L1_INFO_INVALID', message);
}

/** op-geth extractL1GasParams: the fee parameters of a block's L1-info calldata at the block's fork. */
export function l1GasParamsFromL1InfoCalldata(data: Uint8Array, fork: OpFork): L1GasParams {
  const postEcotone = (): L1GasParams => ({
    l1BaseFee: get(data, 36, 32),
    l1BlobBaseFee: get(data, 68, 32),
    baseFeeScalar: get(data, 4, 4),
    blobBaseFeeScalar: get(data, 8, 4),
    costFork: atLeast(fork, 'fjord') ? 'fjord' : 'ecotone',
  });
  if (atLeast(fork, 'isthmus') && data.length >= 4 && !hasSelector(data, L1_INFO_SELECTORS.ecotone)) {
    // Isthmus and later formats share the first 176 bytes.
    if (data.length < 176) bad(`expected at least 176 L1 info bytes, got ${data.length}`);
    const p: L1GasParams = {
      ...postEcotone(),
      operatorFeeScalar: get(data, 164, 4),
      operatorFeeConstant: get(data, 168, 8),
    };
    if (hasSelector(data, L1_INFO_SELECTORS.jovian) && data.length >= 178) p.daFootprintGasScalar = get(data, 176, 2);
    return p;
  }
  if (atLeast(fork, 'ecotone') && data.length >= 4 && !hasSelector(data, L1_INFO_SELECTORS.bedrock)) {
    if (data.length !== 164) bad(`expected 164 L1 info bytes, got ${data.length}`);
    return postEcotone();
  }
  if (data.length < 4 + 32 * 8) bad(`expected at least ${4 + 32 * 8} L1 info bytes, got ${data.length}`);
  return {
    l1BaseFee: get(data, 4 + 64, 32),
    overhead: get(data, 4 + 192, 32),
    scalar: get(data, 4 + 224, 32),
    costFork: atLeast(fork, 'regolith') ? 'regolith' : 'bedrock',
  };
}

/**
 * A Bedrock scalar as op-geth prints l1FeeScalar: scalar / 1e6 through big.Float.String(), i.e. %g with 10
 * significant digits ("0.684", "7", "1e-06"). Computed from the exact decimal, rounding half to even.
 */
export function formatFeeScalar(scalar: bigint): string {
  if (scalar === 0n) return '0';
  let digits = scalar.toString();
  let exp = digits.length - 6; // value = 0.digits × 10^exp
  if (digits.length > 10) {
    const head = BigInt(digits.slice(0, 10));
    const rest = digits.slice(10);
    const half = `5${'0'.repeat(rest.length - 1)}`;
    const up = rest > half || (rest === half && head % 2n === 1n);
    const rounded = (up ? head + 1n : head).toString();
    if (rounded.length > 10) exp++;
    digits = rounded.slice(0, 10);
  }
  digits = digits.replace(/0+$/, '');
  const x = exp - 1;
  let eprec = 10;
  if (eprec > digits.length && digits.length >= exp) eprec = digits.length;
  if (x < -4 || x >= eprec) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(x);
    return `${mant}e${x < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp <= 0) return `0.${'0'.repeat(-exp)}${digits}`;
  if (exp >= digits.length) return digits + '0'.repeat(exp - digits.length);
  return `${digits.slice(0, exp)}.${digits.slice(exp)}`;
}

/** The OP receipt fields of a non-deposit transaction, in op-geth's marshalReceipt form. */
export function opReceiptJsonFields(cd: RollupCostData, p: L1GasParams, fork: OpFork): Record<string, unknown> {
  const { fee, gasUsed } = l1CostFromCostData(cd, p, p.costFork);
  const out: Record<string, unknown> = { l1GasPrice: qty(p.l1BaseFee), l1GasUsed: qty(gasUsed), l1Fee: qty(fee) };
  if (p.costFork === 'bedrock' || p.costFork === 'regolith') out.l1FeeScalar = formatFeeScalar(p.scalar ?? 0n);
  if (p.l1BlobBaseFee !== undefined) out.l1BlobBaseFee = qty(p.l1BlobBaseFee);
  if (p.baseFeeScalar !== undefined) out.l1BaseFeeScalar = qty(p.baseFeeScalar);
  if (p.blobBaseFeeScalar !== undefined) out.l1BlobBaseFeeScalar = qty(p.blobBaseFeeScalar);
  // Isthmus spec: the operator fee fields appear only when one of them is non-zero.
  if (atLeast(fork, 'isthmus') && (p.operatorFeeScalar || p.operatorFeeConstant)) {
    out.operatorFeeScalar = qty(p.operatorFeeScalar ?? 0n);
    out.operatorFeeConstant = qty(p.operatorFeeConstant ?? 0n);
  }
  // Jovian: the block's DA footprint scalar, and blobGasUsed repurposed as the transaction's DA footprint.
  if (atLeast(fork, 'jovian') && p.daFootprintGasScalar !== undefined) {
    out.daFootprintGasScalar = qty(p.daFootprintGasScalar);
    out.blobGasUsed = qty(txDAFootprint(cd.fastLzSize, p.daFootprintGasScalar));
  }
  return out;
}

/** A deposit receipt's extra fields (Regolith on). */
export function depositReceiptJsonFields(r: {
  depositNonce?: bigint | undefined;
  depositReceiptVersion?: bigint | undefined;
}): Record<string, unknown> {
  if (r.depositNonce === undefined) return {};
  const out: Record<string, unknown> = { depositNonce: qty(r.depositNonce) };
  if (r.depositReceiptVersion !== undefined) out.depositReceiptVersion = qty(r.depositReceiptVersion);
  return out;
}
