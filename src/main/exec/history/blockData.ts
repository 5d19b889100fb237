// The parts of stored blocks the history tasks need, decoded from the raw tables (db/chain.ts): transaction hashes of
// a body and the logs of a block's receipts. Frozen blocks are found in the ancient store through the reader.
import { keccak256 } from '../../native/keccak.js';
import { decodeReceipt, type Log } from '../../primitives/receipt/receipt.js';
import { asList, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import * as chain from '../db/chain.js';

type Encodable = Parameters<typeof rlpEncode>[0];

/** The transaction hashes of a body RLP (typed transactions are strings, legacy ones lists), in block order. */
export function bodyTxHashes(bodyRlp: Uint8Array): Uint8Array[] {
  const body = asList(rlpDecode(bodyRlp), 'body');
  const txs = asList(body[0], 'body transactions');
  return txs.map((t) => keccak256(t instanceof Uint8Array ? t : rlpEncode(t as Encodable)));
}

/** The transaction hashes of block (number, hash), or undefined when its body is not stored. */
export function blockTxHashes(r: chain.ChainReader, number: number, hash: Uint8Array): Uint8Array[] | undefined {
  const body = chain.readBodyRlp(r, number, hash);
  return body === undefined ? undefined : bodyTxHashes(body);
}

/** Every log of block (number, hash) in block order, or undefined when its receipts are not stored. */
export function blockLogList(r: chain.ChainReader, number: number, hash: Uint8Array): Log[] | undefined {
  const rlp = chain.readReceiptsRlp(r, number, hash);
  if (rlp === undefined) return undefined;
  const out: Log[] = [];
  for (const item of asList(rlpDecode(rlp), 'receipts')) {
    const receipt = decodeReceipt(item instanceof Uint8Array ? item : rlpEncode(item as Encodable));
    out.push(...receipt.logs);
  }
  return out;
}
