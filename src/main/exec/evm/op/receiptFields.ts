// The OP fields of RPC receipts, derived as op-geth's receipt derivation does: the L1 gas parameters come from the
// block's L1-info deposit (its first transaction), not from state, and each non-deposit transaction's L1 fee is
// recomputed from its encoding. Deposits get depositNonce/depositReceiptVersion from their stored receipt.
import { type ChainConfig, isTimeForkActive } from '../../../primitives/chainConfig.js';
import { type L1CostFork, l1Cost } from '../../../primitives/op/l1Cost.js';
import { decodeL1InfoCalldata } from '../../../primitives/op/l1Info.js';
import type { DecodedTx } from '../../../primitives/tx/decode.js';

const qty = (n: bigint) => `0x${n.toString(16)}`;

/** Go's big.Float String() ('g' format, 10 significant digits), which op-geth uses for l1FeeScalar. */
export function formatFeeScalar(scalar: bigint): string {
  const x = Number(scalar) / 1e6;
  if (x === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(x)));
  if (exp < -4 || exp >= 10) {
    const [mant, e] = x.toExponential(9).split('e') as [string, string];
    const m = mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant;
    const n = Number(e);
    return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  const s = x.toPrecision(10);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/**
 * Per transaction, the OP receipt fields op-geth adds (undefined for deposits and on non-OP chains): l1GasPrice,
 * l1GasUsed, l1Fee, l1FeeScalar (pre-Ecotone format), l1BlobBaseFee, l1BaseFeeScalar, l1BlobBaseFeeScalar
 * (Ecotone on), operatorFeeScalar/Constant (Isthmus, when either is non-zero), daFootprintGasScalar and the
 * transaction's DA footprint as blobGasUsed (Jovian).
 */
export function opReceiptFields(
  config: ChainConfig,
  timestamp: bigint,
  txs: readonly DecodedTx[],
): Array<Record<string, string> | undefined> {
  const out: Array<Record<string, string> | undefined> = txs.map(() => undefined);
  const first = txs[0];
  if (config.optimism === undefined || txs.length < 2 || first?.deposit === undefined) return out;
  let info: ReturnType<typeof decodeL1InfoCalldata>;
  try {
    info = decodeL1InfoCalldata(first.data);
  } catch {
    return out; // op-geth logs and leaves the fields out when the L1-info calldata cannot be read
  }
  const regolith = isTimeForkActive(config, 'regolithTime', timestamp);
  const fjord = isTimeForkActive(config, 'fjordTime', timestamp);
  const bedrockFormat = info.format === 'bedrock';
  const fork: L1CostFork = bedrockFormat ? (regolith ? 'regolith' : 'bedrock') : fjord ? 'fjord' : 'ecotone';
  const params = bedrockFormat
    ? { l1BaseFee: info.baseFee, overhead: info.l1FeeOverhead ?? 0n, scalar: info.l1FeeScalar ?? 0n }
    : {
        l1BaseFee: info.baseFee,
        l1BlobBaseFee: info.blobBaseFee ?? 0n,
        baseFeeScalar: info.baseFeeScalar ?? 0n,
        blobBaseFeeScalar: info.blobBaseFeeScalar ?? 0n,
      };
  const opScalar = info.operatorFeeScalar ?? 0n;
  const opConstant = info.operatorFeeConstant ?? 0n;
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i] as DecodedTx;
    if (tx.deposit !== undefined) continue;
    const cost = l1Cost(tx.raw, params, fork);
    const f: Record<string, string> = {
      l1GasPrice: qty(info.baseFee),
      l1GasUsed: qty(cost.gasUsed),
      l1Fee: qty(cost.fee),
    };
    if (bedrockFormat) f.l1FeeScalar = formatFeeScalar(info.l1FeeScalar ?? 0n);
    else {
      f.l1BlobBaseFee = qty(info.blobBaseFee ?? 0n);
      f.l1BaseFeeScalar = qty(info.baseFeeScalar ?? 0n);
      f.l1BlobBaseFeeScalar = qty(info.blobBaseFeeScalar ?? 0n);
    }
    if (opScalar !== 0n || opConstant !== 0n) {
      f.operatorFeeScalar = qty(opScalar);
      f.operatorFeeConstant = qty(opConstant);
    }
    if (info.daFootprintGasScalar !== undefined) {
      f.daFootprintGasScalar = qty(info.daFootprintGasScalar);
      // Jovian: the receipt's blobGasUsed is the transaction's DA footprint (estimated size · scalar).
      f.blobGasUsed = qty((cost.gasUsed / 16n) * info.daFootprintGasScalar);
    }
    out[i] = f;
  }
  return out;
}
