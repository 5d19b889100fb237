// JSON shapes of blocks, transactions, receipts and logs as geth's internal/ethapi marshals them (RPCMarshalBlock,
// newRPCTransaction, marshalReceipt, types.Log). Go marshals maps with their keys sorted, so block objects are
// emitted that way too. OP chains: deposits carry sourceHash/mint/isSystemTx (and their receipt's nonce), receipts
// the L1-fee, operator-fee and deposit fields op-geth adds.
import { type Block, encodeBlock, transactionHash, type Withdrawal } from '../../primitives/block/block.js';
import { blobBaseFee } from '../../primitives/block/fees.js';
import { type Header, headerHash, headerToJson } from '../../primitives/block/header.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { blobParamsAt, type ChainConfig } from '../../primitives/chainConfig.js';
import { blockReceiptsToJson, createAddress } from '../../primitives/receipt/json.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import { type DecodedTx, decodeTransaction } from '../../primitives/tx/decode.js';
import { txToJson } from '../../primitives/tx/json.js';
import type { HeaderRef } from '../chain/chainView.js';
import { opReceiptFields } from '../evm/op/receiptFields.js';

const qty = (n: bigint | number): string => `0x${n.toString(16)}`;

/** Recovers (and caches) the sender of a raw transaction. */
export type SenderOf = (raw: Uint8Array, tx: DecodedTx) => Uint8Array;

export function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

export function withdrawalToJson(w: Withdrawal): Record<string, string> {
  return { index: qty(w.index), validatorIndex: qty(w.validatorIndex), address: hex(w.address), amount: qty(w.amount) };
}

/** A header alone (eth_getHeaderBy*): geth's RPCMarshalHeader. */
export function headerJson(ref: HeaderRef): Record<string, unknown> {
  return sortKeys(headerToJson(ref.header, ref.hash));
}

/**
 * A mined transaction at position `index` of `block`. A deposit's JSON nonce is its receipt's depositNonce: pass
 * the block's receipts to get it (op-geth reads the receipt too).
 */
export function blockTxToJson(
  block: Block,
  hash: Uint8Array,
  index: number,
  senderOf: SenderOf,
  receipts?: readonly Receipt[],
): unknown {
  const raw = block.transactions[index];
  if (raw === undefined) return null;
  const tx = decodeTransaction(raw);
  const from = tx.deposit !== undefined ? tx.deposit.from : senderOf(raw, tx);
  return txToJson(
    tx,
    from,
    { blockHash: hash, blockNumber: block.header.number, index, baseFee: block.header.baseFeePerGas },
    tx.deposit !== undefined ? receipts?.[index] : undefined,
  );
}

/** eth_getBlockBy*: the header fields, size, transactions (hashes or full), uncle hashes and withdrawals. */
export function blockToJson(
  block: Block,
  hash: Uint8Array,
  fullTx: boolean,
  senderOf: SenderOf,
  receipts?: readonly Receipt[],
): Record<string, unknown> {
  const out: Record<string, unknown> = headerToJson(block.header, hash);
  out.size = qty(encodeBlock(block).length);
  out.transactions = fullTx
    ? block.transactions.map((_, i) => blockTxToJson(block, hash, i, senderOf, receipts))
    : block.transactions.map((raw) => hex(transactionHash(raw)));
  out.uncles = block.uncles.map((u: Header) => hex(headerHash(u)));
  if (block.withdrawals !== undefined) out.withdrawals = block.withdrawals.map(withdrawalToJson);
  return sortKeys(out);
}

/** The blob base fee of a block (Cancun on), as receipts report it. */
export function blockBlobBaseFee(config: ChainConfig, header: Header): bigint | undefined {
  if (header.excessBlobGas === undefined) return undefined;
  const params = blobParamsAt(config, header.timestamp);
  return params === undefined ? undefined : blobBaseFee(header.excessBlobGas, params);
}

/**
 * Receipts of a block as JSON. `only` restricts sender recovery to one transaction (eth_getTransactionReceipt):
 * a receipt's other fields do not depend on the other transactions' senders.
 */
export function receiptsToJson(
  config: ChainConfig,
  block: Block,
  hash: Uint8Array,
  receipts: readonly Receipt[],
  senderOf: SenderOf,
  only?: number,
): Array<Record<string, unknown>> {
  const txs = block.transactions.map((raw) => decodeTransaction(raw));
  const zero = new Uint8Array(20);
  const senders = txs.map((tx, i) => {
    if (tx.deposit !== undefined) return tx.deposit.from;
    return only === undefined || i === only ? senderOf(block.transactions[i] as Uint8Array, tx) : zero;
  });
  const out = blockReceiptsToJson({
    blockHash: hash,
    blockNumber: block.header.number,
    baseFee: block.header.baseFeePerGas,
    blobBaseFee: blockBlobBaseFee(config, block.header),
    txs,
    senders,
    receipts,
  });
  if (config.optimism === undefined) return out;
  const opFields = opReceiptFields(config, block.header.timestamp, txs);
  out.forEach((json, i) => {
    const tx = txs[i] as DecodedTx;
    const receipt = receipts[i] as Receipt;
    Object.assign(json, opFields[i]);
    if (tx.deposit === undefined || receipt.depositNonce === undefined) return;
    // Regolith on: the receipt's nonce names the created contract (the transaction itself has no nonce).
    if (tx.to === undefined) json.contractAddress = hex(createAddress(tx.deposit.from, receipt.depositNonce));
    json.depositNonce = qty(receipt.depositNonce);
    if (receipt.depositReceiptVersion !== undefined) json.depositReceiptVersion = qty(receipt.depositReceiptVersion);
  });
  return out;
}

export { hex, qty };
