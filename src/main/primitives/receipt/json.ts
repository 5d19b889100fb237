// Receipts as eth_getTransactionReceipt / eth_getBlockReceipts return them (geth's field set): what the
// consensus receipt does not carry — gas used per transaction, sender, contract address, effective and blob gas
// prices, log positions — is derived from the block.
import { keccak256 } from '../../native/keccak.js';
import { toHex as hex } from '../bytes.js';
import { bigintToBytes, rlpEncode } from '../rlp.js';
import type { DecodedTx } from '../tx/decode.js';
import type { Receipt } from './receipt.js';

const qty = (n: bigint | number) => `0x${n.toString(16)}`;
const GAS_PER_BLOB = 131072n;

/** The address of a contract created by `sender` with `nonce` (CREATE). */
export function createAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
  return keccak256(rlpEncode([sender, bigintToBytes(nonce)])).slice(12);
}

export interface BlockReceiptsInput {
  blockHash: Uint8Array;
  blockNumber: bigint;
  baseFee: bigint | undefined;
  /** The block's blob base fee (Cancun on). */
  blobBaseFee: bigint | undefined;
  txs: readonly DecodedTx[];
  senders: readonly Uint8Array[];
  receipts: readonly Receipt[];
}

export function logsToJson(
  input: BlockReceiptsInput,
  index: number,
  firstLogIndex: number,
): Array<Record<string, unknown>> {
  const tx = input.txs[index] as DecodedTx;
  const receipt = input.receipts[index] as Receipt;
  return receipt.logs.map((l, i) => ({
    address: hex(l.address),
    topics: l.topics.map(hex),
    data: hex(l.data),
    blockNumber: qty(input.blockNumber),
    transactionHash: hex(tx.hash),
    transactionIndex: qty(index),
    blockHash: hex(input.blockHash),
    logIndex: qty(firstLogIndex + i),
    removed: false,
  }));
}

export function blockReceiptsToJson(input: BlockReceiptsInput): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  let logIndex = 0;
  let prevCumulative = 0n;
  input.receipts.forEach((receipt, i) => {
    const tx = input.txs[i] as DecodedTx;
    const sender = input.senders[i] as Uint8Array;
    const json: Record<string, unknown> = {};
    if (tx.type === 3) {
      json.blobGasPrice = qty(input.blobBaseFee ?? 0n);
      json.blobGasUsed = qty(BigInt(tx.blobVersionedHashes?.length ?? 0) * GAS_PER_BLOB);
    }
    let price: bigint;
    if (tx.type === 0 || tx.type === 1) price = tx.gasPrice ?? 0n;
    else {
      const cap = tx.maxFeePerGas ?? 0n;
      const tip = tx.maxPriorityFeePerGas ?? 0n;
      price = input.baseFee !== undefined && input.baseFee + tip < cap ? input.baseFee + tip : cap;
    }
    Object.assign(json, {
      blockHash: hex(input.blockHash),
      blockNumber: qty(input.blockNumber),
      contractAddress: tx.to === undefined ? hex(createAddress(sender, tx.nonce)) : null,
      cumulativeGasUsed: qty(receipt.cumulativeGasUsed),
      effectiveGasPrice: qty(price),
      from: hex(sender),
      gasUsed: qty(receipt.cumulativeGasUsed - prevCumulative),
      logs: logsToJson(input, i, logIndex),
      logsBloom: hex(receipt.logsBloom),
      status: qty(receipt.status),
      to: tx.to ? hex(tx.to.bytes) : null,
      transactionHash: hex(tx.hash),
      transactionIndex: qty(i),
      type: qty(tx.type),
    });
    if (receipt.postState) {
      json.root = hex(receipt.postState);
      delete json.status;
    }
    prevCumulative = receipt.cumulativeGasUsed;
    logIndex += receipt.logs.length;
    out.push(json);
  });
  return out;
}
