// Whole blocks in their consensus encoding: [header, transactions, uncles, withdrawals?]. Transactions stay in
// their raw consensus form (legacy RLP list or EIP-2718 envelope) so hashing, sender recovery and the
// transactions root work on bytes, and only the executor decodes them.

import { keccak256 } from '../../native/keccak.js';
import { TernError } from '../errors.js';
import { asBytes, asList, bigintToBytes, bytesToBigint, type RlpDecoded, rlpDecode, rlpEncode } from '../rlp.js';
import { orderedTrieRoot } from '../trie/root.js';
import { encodeHeader, type Header, headerFromFields } from './header.js';

export interface Withdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: Uint8Array;
  /** In gwei. */
  amount: bigint;
}

export interface Block {
  header: Header;
  /** Consensus encodings: typed transactions as `type ‖ rlp(fields)`, legacy as the RLP list. */
  transactions: Uint8Array[];
  uncles: Header[];
  withdrawals?: Withdrawal[] | undefined;
}

/** A typed transaction sits in a block body as an RLP string; a legacy one as a list. */
function txFromBody(item: RlpDecoded): Uint8Array {
  return item instanceof Uint8Array ? item : rlpEncode(item as Parameters<typeof rlpEncode>[0]);
}

function txToBody(tx: Uint8Array): RlpDecoded {
  return (tx[0] as number) >= 0xc0 ? (rlpDecode(tx) as RlpDecoded[]) : tx;
}

export function encodeWithdrawal(w: Withdrawal): Uint8Array {
  return rlpEncode([bigintToBytes(w.index), bigintToBytes(w.validatorIndex), w.address, bigintToBytes(w.amount)]);
}

function decodeWithdrawal(item: RlpDecoded): Withdrawal {
  const f = asList(item, 'withdrawal');
  if (f.length !== 4) throw new TernError('BLOCK_INVALID', `withdrawal has ${f.length} fields`);
  const address = asBytes(f[2], 'withdrawal address');
  if (address.length !== 20) throw new TernError('BLOCK_INVALID', 'withdrawal address is not 20 bytes');
  return {
    index: uint64(f[0], 'withdrawal index'),
    validatorIndex: uint64(f[1], 'withdrawal validator index'),
    address,
    amount: uint64(f[3], 'withdrawal amount'),
  };
}

/** A withdrawal's numbers are uint64 (EIP-4895): a longer integer is a decoding error, as in geth. */
function uint64(item: RlpDecoded | undefined, what: string): bigint {
  const b = asBytes(item, what);
  if (b.length > 8) throw new TernError('BLOCK_INVALID', `${what}: ${b.length} bytes overflow uint64`);
  return bytesToBigint(b, what);
}

export function decodeBlock(raw: Uint8Array): Block {
  const f = asList(rlpDecode(raw), 'block');
  if (f.length < 3 || f.length > 4) throw new TernError('BLOCK_INVALID', `block has ${f.length} fields`);
  return { header: headerFromFields(asList(f[0], 'header')), ...bodyFromFields(f.slice(1)) };
}

/** A block body as eth/68 BlockBodies carries it: the RLP list [transactions, uncles, withdrawals?]. */
export function decodeBody(raw: Uint8Array): Omit<Block, 'header'> {
  const f = asList(rlpDecode(raw), 'block body');
  if (f.length < 2 || f.length > 3) throw new TernError('BLOCK_INVALID', `block body has ${f.length} fields`);
  return bodyFromFields(f);
}

function bodyFromFields(f: RlpDecoded[]): Omit<Block, 'header'> {
  const body: Omit<Block, 'header'> = {
    transactions: asList(f[0], 'transactions').map(txFromBody),
    uncles: asList(f[1], 'uncles').map((u) => headerFromFields(asList(u, 'uncle header'))),
  };
  if (f.length === 3) body.withdrawals = asList(f[2], 'withdrawals').map(decodeWithdrawal);
  return body;
}

export function encodeBlock(b: Block): Uint8Array {
  const fields: RlpDecoded[] = [rlpDecode(encodeHeader(b.header)), ...bodyFields(b)];
  return rlpEncode(fields as Parameters<typeof rlpEncode>[0]);
}

/** The body as stored beside the header: [transactions, uncles, withdrawals?], what decodeBody reads. */
export function encodeBody(b: Omit<Block, 'header'>): Uint8Array {
  return rlpEncode(bodyFields(b) as Parameters<typeof rlpEncode>[0]);
}

function bodyFields(b: Omit<Block, 'header'>): RlpDecoded[] {
  const fields: RlpDecoded[] = [b.transactions.map(txToBody), b.uncles.map((u) => rlpDecode(encodeHeader(u)))];
  if (b.withdrawals !== undefined) fields.push(b.withdrawals.map((w) => rlpDecode(encodeWithdrawal(w))));
  return fields;
}

export function transactionsRoot(txs: readonly Uint8Array[]): Uint8Array {
  return orderedTrieRoot(txs);
}

export function withdrawalsRoot(ws: readonly Withdrawal[]): Uint8Array {
  return orderedTrieRoot(ws.map(encodeWithdrawal));
}

export function unclesHash(uncles: readonly Header[]): Uint8Array {
  return keccak256(rlpEncode(uncles.map((u) => rlpDecode(encodeHeader(u))) as Parameters<typeof rlpEncode>[0]));
}

/** The transaction hash: keccak of the consensus encoding. */
export function transactionHash(tx: Uint8Array): Uint8Array {
  return keccak256(tx);
}
