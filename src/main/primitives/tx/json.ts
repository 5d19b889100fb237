// Transactions as eth_getTransactionByHash returns them (geth's RPCTransaction): fields by type, the effective
// gas price for mined 1559-style transactions, and the block position when the transaction is mined.

import { toHex as hex } from '../bytes.js';
import type { DecodedTx } from './decode.js';

const qty = (n: bigint | number) => `0x${n.toString(16)}`;

export interface TxPosition {
  blockHash: Uint8Array;
  blockNumber: bigint;
  index: number;
  /** The block's base fee: a mined dynamic-fee transaction reports its effective gas price. */
  baseFee: bigint | undefined;
}

/** What a deposit's receipt adds to its RPC form (op-geth reads the receipt for these). */
export interface DepositReceiptInfo {
  depositNonce?: bigint | undefined;
  depositReceiptVersion?: bigint | undefined;
}

export function txToJson(
  tx: DecodedTx,
  from: Uint8Array,
  at?: TxPosition,
  receipt?: DepositReceiptInfo,
): Record<string, unknown> {
  if (tx.deposit) return depositToJson(tx, tx.deposit, at, receipt);
  const out: Record<string, unknown> = {
    blockHash: at ? hex(at.blockHash) : null,
    blockNumber: at ? qty(at.blockNumber) : null,
    from: hex(from),
    gas: qty(tx.gasLimit),
  };
  if (tx.type === 0 || tx.type === 1) {
    out.gasPrice = qty(tx.gasPrice ?? 0n);
  } else {
    const cap = tx.maxFeePerGas ?? 0n;
    const tip = tx.maxPriorityFeePerGas ?? 0n;
    const price = at && at.baseFee !== undefined ? (at.baseFee + tip < cap ? at.baseFee + tip : cap) : cap;
    out.gasPrice = qty(price);
    out.maxFeePerGas = qty(cap);
    out.maxPriorityFeePerGas = qty(tip);
    if (tx.type === 3) out.maxFeePerBlobGas = qty(tx.maxFeePerBlobGas ?? 0n);
  }
  out.hash = hex(tx.hash);
  out.input = hex(tx.data);
  out.nonce = qty(tx.nonce);
  out.to = tx.to ? hex(tx.to.bytes) : null;
  out.transactionIndex = at ? qty(at.index) : null;
  out.value = qty(tx.value);
  out.type = qty(tx.type);
  if (tx.type !== 0) {
    out.accessList = (tx.accessList ?? []).map(([address, keys]) => ({
      address: hex(address),
      storageKeys: keys.map(hex),
    }));
  }
  if (tx.chainId !== undefined) out.chainId = qty(tx.chainId);
  if (tx.type === 3) out.blobVersionedHashes = tx.blobVersionedHashes ?? [];
  if (tx.type === 4) {
    out.authorizationList = (tx.authorizationList ?? []).map((a) => ({
      chainId: qty(bytesToQty(a[0])),
      address: hex(a[1] as Uint8Array),
      nonce: qty(bytesToQty(a[2])),
      yParity: qty(bytesToQty(a[3])),
      r: qty(bytesToQty(a[4])),
      s: qty(bytesToQty(a[5])),
    }));
  }
  out.v = qty(tx.v);
  out.r = qty(tx.r);
  out.s = qty(tx.s);
  if (tx.type !== 0) out.yParity = qty(tx.v);
  return out;
}

// op-geth's RPCTransaction for type 0x7e: zero gas price and signature, no chainId/accessList/yParity; the
// nonce is the receipt's depositNonce (0 before Regolith); mint only when non-zero (op-geth decodes a zero mint
// as absent), isSystemTx only when true, depositReceiptVersion only with a depositNonce (Canyon on).
function depositToJson(
  tx: DecodedTx,
  d: NonNullable<DecodedTx['deposit']>,
  at: TxPosition | undefined,
  receipt: DepositReceiptInfo | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    blockHash: at ? hex(at.blockHash) : null,
    blockNumber: at ? qty(at.blockNumber) : null,
    from: hex(d.from),
    gas: qty(tx.gasLimit),
    gasPrice: '0x0',
    hash: hex(tx.hash),
    input: hex(tx.data),
    nonce: qty(receipt?.depositNonce ?? 0n),
    to: tx.to ? hex(tx.to.bytes) : null,
    transactionIndex: at ? qty(at.index) : null,
    value: qty(tx.value),
    type: qty(tx.type),
    v: '0x0',
    r: '0x0',
    s: '0x0',
    sourceHash: hex(d.sourceHash),
  };
  if (d.mint !== 0n) out.mint = qty(d.mint);
  if (d.isSystemTx) out.isSystemTx = true;
  if (receipt?.depositNonce !== undefined && receipt.depositReceiptVersion !== undefined) {
    out.depositReceiptVersion = qty(receipt.depositReceiptVersion);
  }
  return out;
}

function bytesToQty(b: Uint8Array | undefined): bigint {
  return b === undefined || b.length === 0 ? 0n : BigInt(hex(b));
}
