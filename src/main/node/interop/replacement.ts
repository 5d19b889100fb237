// Replacing an invalidated block (specs interop/derivation.md "Replacing Invalid Blocks", op-node's
// managed/attributes.go): the same inputs as the invalid block, but only its deposits, followed by the
// optimistic-block deposit that carries the output-root preimage of the replaced block, so anyone can tell which
// block was replaced and what its output would have been.
import { keccak256 } from '../../native/keccak.js';
import { decodeDepositTx, encodeDepositTx } from '../../primitives/tx/deposit/deposit.js';
import type { PayloadAttributes as DerivedAttributes } from '../derive/types.js';
import type { L2Payload, OutputV0 } from '../engine/interface.js';
import { OUTPUT_VERSION_V0 } from '../engine/output.js';

/** The sender of the optimistic-block deposit: the L1-attributes depositor plus one. */
export const OPTIMISTIC_BLOCK_DEPOSITOR = Uint8Array.from(
  Buffer.from('deaddeaddeaddeaddeaddeaddeaddeaddead0002', 'hex'),
);
/** The deposit source-hash domain of optimistic-block deposits. */
export const INVALIDATED_BLOCK_SOURCE_DOMAIN = 4;
const GAS = 36_000n;
const DEPOSIT_TYPE = 0x7e;

/** version ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash: what the output root hashes. */
export function outputRootPreimage(o: Pick<OutputV0, 'stateRoot' | 'messagePasserStorageRoot' | 'blockHash'>) {
  const buf = new Uint8Array(128);
  buf.set(OUTPUT_VERSION_V0, 0);
  buf.set(o.stateRoot, 32);
  buf.set(o.messagePasserStorageRoot, 64);
  buf.set(o.blockHash, 96);
  return buf;
}

/** keccak256(bytes32(4) ‖ outputRoot): the spec's optimistic-block source hash. */
export function invalidatedBlockSourceHash(outputRoot: Uint8Array): Uint8Array {
  const buf = new Uint8Array(64);
  buf[31] = INVALIDATED_BLOCK_SOURCE_DOMAIN;
  buf.set(outputRoot, 32);
  return keccak256(buf);
}

/** The optimistic-block deposit for the replaced block's output. */
export function optimisticBlockDeposit(output: Pick<OutputV0, 'stateRoot' | 'messagePasserStorageRoot' | 'blockHash'>) {
  const preimage = outputRootPreimage(output);
  return encodeDepositTx({
    sourceHash: invalidatedBlockSourceHash(keccak256(preimage)),
    from: OPTIMISTIC_BLOCK_DEPOSITOR,
    to: new Uint8Array(20),
    mint: 0n,
    value: 0n,
    gasLimit: GAS,
    isSystemTx: false,
    data: preimage,
  });
}

/** The Holocene EIP-1559 parameters (denominator ‖ elasticity) and Jovian's min base fee from a block's extraData. */
function feeParams(extraData: Uint8Array): { eip1559Params?: Uint8Array; minBaseFee?: bigint } {
  if (extraData.length < 9) return {};
  const out: { eip1559Params?: Uint8Array; minBaseFee?: bigint } = { eip1559Params: extraData.slice(1, 9) };
  if (extraData[0] === 1 && extraData.length >= 17) {
    out.minBaseFee = Buffer.from(extraData.subarray(9, 17)).readBigUInt64BE();
  }
  return out;
}

/** The attributes that rebuild `invalid` at the same height with deposits only plus the optimistic-block deposit. */
export function replacementAttributes(invalid: L2Payload, output: OutputV0): DerivedAttributes {
  const p = invalid.payload;
  const deposits = p.transactions.filter((t) => t.length > 0 && t[0] === DEPOSIT_TYPE);
  return {
    timestamp: Number(p.timestamp),
    prevRandao: p.prevRandao,
    suggestedFeeRecipient: `0x${Buffer.from(p.feeRecipient).toString('hex')}`,
    ...(p.withdrawals !== undefined ? { withdrawals: [] as [] } : {}),
    parentBeaconBlockRoot: invalid.parentBeaconBlockRoot,
    transactions: [...deposits, optimisticBlockDeposit(output)],
    noTxPool: true,
    gasLimit: p.gasLimit,
    ...feeParams(p.extraData),
  };
}

/**
 * The replaced block's output carried by a replacement block's last transaction; undefined when the block is not a
 * replacement (its last transaction is not an optimistic-block deposit).
 */
export function replacedOutput(transactions: readonly Uint8Array[]): [Uint8Array, Uint8Array, Uint8Array] | undefined {
  const last = transactions[transactions.length - 1];
  if (last === undefined || last[0] !== DEPOSIT_TYPE) return undefined;
  let tx: ReturnType<typeof decodeDepositTx>;
  try {
    tx = decodeDepositTx(last);
  } catch {
    return undefined;
  }
  if (!Buffer.from(tx.from).equals(Buffer.from(OPTIMISTIC_BLOCK_DEPOSITOR))) return undefined;
  const d = tx.data;
  if (d.length !== 128 || d.subarray(0, 32).some((b) => b !== 0)) return undefined;
  return [d.slice(32, 64), d.slice(64, 96), d.slice(96, 128)];
}
