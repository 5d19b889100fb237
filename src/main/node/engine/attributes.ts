// Derived payload attributes against the engine: their Engine API form, and op-node's AttributesMatchBlock — does
// an existing (unsafe) block say exactly what the attributes say? Then it can be consolidated (marked safe) instead
// of being rebuilt.
import { decodeOpExtraData } from '../../primitives/op/eip1559.js';
import { isHolocene, isJovian, type RollupConfig } from '../../primitives/rollup/config.js';
import { type PayloadAttributes as DerivedAttributes, fromHex, toHex } from '../derive/types.js';
import type { L2Payload, PayloadAttributes } from './interface.js';

export function toEngineAttributes(a: DerivedAttributes): PayloadAttributes {
  const out: PayloadAttributes = {
    timestamp: BigInt(a.timestamp),
    prevRandao: a.prevRandao,
    suggestedFeeRecipient: fromHex(a.suggestedFeeRecipient),
    transactions: a.transactions,
    noTxPool: a.noTxPool,
    gasLimit: a.gasLimit,
  };
  if (a.withdrawals !== undefined) out.withdrawals = [];
  if (a.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = a.parentBeaconBlockRoot;
  if (a.eip1559Params !== undefined) out.eip1559Params = a.eip1559Params;
  if (a.minBaseFee !== undefined) out.minBaseFee = a.minBaseFee;
  return out;
}

const same = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  a === undefined || b === undefined ? a === b : a.length === b.length && a.every((x, i) => x === b[i]);

/** Why the block does not match the attributes, or undefined when it does. */
export function attributesMismatch(
  cfg: RollupConfig,
  parentHash: string,
  a: DerivedAttributes,
  block: L2Payload,
): string | undefined {
  const p = block.payload;
  if (toHex(p.parentHash) !== parentHash.toLowerCase()) {
    return `parent hash ${toHex(p.parentHash)} differs from the attributes' parent ${parentHash}`;
  }
  if (Number(p.timestamp) !== a.timestamp) return `timestamp ${p.timestamp}, attributes ${a.timestamp}`;
  if (!same(p.prevRandao, a.prevRandao)) return 'prevRandao differs';
  if (toHex(p.feeRecipient) !== a.suggestedFeeRecipient.toLowerCase()) {
    return `fee recipient ${toHex(p.feeRecipient)}, attributes ${a.suggestedFeeRecipient}`;
  }
  if (p.transactions.length !== a.transactions.length) {
    return `${p.transactions.length} transactions, attributes ${a.transactions.length}`;
  }
  for (let i = 0; i < a.transactions.length; i++) {
    if (!same(p.transactions[i], a.transactions[i])) return `transaction ${i} differs`;
  }
  if (p.gasLimit !== a.gasLimit) return `gas limit ${p.gasLimit}, attributes ${a.gasLimit}`;
  const blockWithdrawals = p.withdrawals === undefined ? undefined : p.withdrawals.length;
  const attrWithdrawals = a.withdrawals === undefined ? undefined : 0;
  if (blockWithdrawals !== attrWithdrawals) return 'withdrawals differ';
  if (!same(block.parentBeaconBlockRoot, a.parentBeaconBlockRoot)) return 'parent beacon block root differs';
  if (isHolocene(cfg, a.timestamp)) {
    const why = extraDataMismatch(cfg, a, p.extraData);
    if (why !== undefined) return why;
  }
  return undefined;
}

function extraDataMismatch(cfg: RollupConfig, a: DerivedAttributes, extra: Uint8Array): string | undefined {
  let decoded: ReturnType<typeof decodeOpExtraData>;
  try {
    decoded = decodeOpExtraData(extra);
  } catch (err) {
    return `invalid extraData: ${err instanceof Error ? err.message : String(err)}`;
  }
  const params = a.eip1559Params ?? new Uint8Array(8);
  const dv = new DataView(params.buffer, params.byteOffset, params.byteLength);
  let denominator = BigInt(dv.getUint32(0));
  let elasticity = BigInt(dv.getUint32(4));
  if (denominator === 0n && elasticity === 0n) {
    // 0/0 asks for the chain's defaults; without the chain's EIP-1559 config there is nothing to compare with.
    const op = cfg.chainOpConfig;
    if (op === undefined) return undefined;
    denominator = op.eip1559DenominatorCanyon ?? op.eip1559Denominator;
    elasticity = op.eip1559Elasticity;
  }
  if (decoded.denominator !== denominator || decoded.elasticity !== elasticity) {
    return `extraData EIP-1559 parameters ${decoded.denominator}/${decoded.elasticity}, attributes ${denominator}/${elasticity}`;
  }
  if (isJovian(cfg, a.timestamp) && (decoded.minBaseFee ?? 0n) !== (a.minBaseFee ?? 0n)) {
    return `extraData minimum base fee ${decoded.minBaseFee}, attributes ${a.minBaseFee}`;
  }
  return undefined;
}
