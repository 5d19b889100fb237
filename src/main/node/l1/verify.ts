// What --l1.trustrpc=false promises: nothing an RPC answer says about a block is used before it is checked
// against the block hash. The header hash is recomputed from the header fields; the transactions, withdrawals and
// receipts are checked against the roots in that header; each transaction's hash against its encoding. Failures
// are L1_BLOCK_INVALID (temporary: another answer may be right) naming the block and the field.
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { encodeWithdrawal, type Withdrawal } from '../../primitives/block/block.js';
import { type Header, headerHash } from '../../primitives/block/header.js';
import { toHex } from '../../primitives/bytes.js';
import { encodeReceipt, type Receipt } from '../../primitives/receipt/receipt.js';
import { orderedTrieRoot } from '../../primitives/trie/root.js';
import type { Hex } from './interface.js';
import { asJson, hashField, headerFromJson, type Json, rawTransactionFromJson, withdrawalFromJson } from './rpcJson.js';

export { toHex };

function invalid(blockHash: string, number: bigint | string, message: string): never {
  throw new TernError('L1_BLOCK_INVALID', `L1 block ${number} (${blockHash}): ${message}`, { severity: 'temporary' });
}

export interface CheckedHeader {
  hash: Hex;
  header: Header;
}

/** Parses a block or header answer and checks that its fields hash to its `hash` (when `verify`). */
export function checkHeader(json: unknown, verify: boolean): CheckedHeader {
  const o = asJson(json, 'block');
  const hash = hashField(o, 'hash');
  const header = headerFromJson(o);
  if (verify) {
    const computed = toHex(headerHash(header));
    if (computed !== hash) {
      invalid(hash, header.number, `failed to verify block hash: header fields hash to ${computed}, RPC said ${hash}`);
    }
  }
  return { hash, header };
}

export interface CheckedBlock extends CheckedHeader {
  /** Consensus encodings, in block order. */
  transactions: Uint8Array[];
  withdrawals: Withdrawal[] | undefined;
}

/**
 * Parses an eth_getBlockByHash(…, true) answer; with `verify`, checks the header hash, every transaction's hash,
 * the transactions root and the withdrawals (presence and root).
 */
export function checkBlock(json: unknown, verify: boolean): CheckedBlock {
  const { hash, header } = checkHeader(json, verify);
  const o = json as Json;
  const fail = (message: string): never => invalid(hash, header.number, message);
  const txs = o.transactions;
  if (!Array.isArray(txs)) fail('answer has no transactions list');
  const transactions = (txs as unknown[]).map((t, i) => {
    if (t === null || t === undefined) fail(`block tx ${i} is nil`);
    if (typeof t === 'string') fail(`block tx ${i} is a hash, not a transaction object`);
    const tx = asJson(t, `transaction ${i}`);
    const raw = rawTransactionFromJson(tx);
    if (verify) {
      const computed = toHex(keccak256(raw));
      const said = hashField(tx, 'hash');
      if (computed !== said) fail(`transaction ${i} encodes to hash ${computed}, RPC said ${said}`);
    }
    return raw;
  });
  if (verify) {
    const root = toHex(orderedTrieRoot(transactions));
    const want = toHex(header.transactionsRoot);
    if (root !== want) fail(`failed to verify transactions list: transactions root ${root}, header has ${want}`);
  }
  let withdrawals: Withdrawal[] | undefined;
  const ws = o.withdrawals;
  if (header.withdrawalsRoot === undefined) {
    if (verify && ws !== undefined && ws !== null) fail('block has withdrawals but its header no withdrawals root');
  } else {
    if (!Array.isArray(ws)) fail('failed to verify withdrawals list: header has a withdrawals root, answer no list');
    withdrawals = (ws as unknown[]).map((w, i) => {
      if (w === null || w === undefined) fail(`block withdrawal ${i} is null`);
      return withdrawalFromJson(asJson(w, `withdrawal ${i}`));
    });
    if (verify) {
      const root = toHex(orderedTrieRoot(withdrawals.map(encodeWithdrawal)));
      const want = toHex(header.withdrawalsRoot);
      if (root !== want) fail(`failed to verify withdrawals list: withdrawals root ${root}, header has ${want}`);
    }
  }
  return { hash, header, transactions, withdrawals };
}

/** Checks receipts against the header's receipts root. */
export function checkReceipts(hash: Hex, header: Header, receipts: readonly Receipt[]): void {
  const root = toHex(orderedTrieRoot(receipts.map(encodeReceipt)));
  const want = toHex(header.receiptsRoot);
  if (root !== want) {
    invalid(
      hash,
      header.number,
      `failed to verify receipts: ${receipts.length} receipts have root ${root}, header has ${want}`,
    );
  }
}
