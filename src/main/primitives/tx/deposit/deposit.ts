// The OP deposit transaction (type 0x7e): 0x7e || rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data]).
// No nonce and no signature; the source hash makes each deposit unique.

import { keccak256 } from '../../../native/keccak.js';
import { TernError } from '../../errors.js';
import { asBytes, asList, bigintToBytes, bytesToBigint, type RlpDecoded, rlpDecode, rlpEncode } from '../../rlp.js';

export const DEPOSIT_TX_TYPE = 0x7e;
const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_UINT256 = (1n << 256n) - 1n;

export interface DepositTx {
  sourceHash: Uint8Array;
  from: Uint8Array;
  /** undefined = contract creation */
  to?: Uint8Array | undefined;
  mint: bigint;
  value: bigint;
  gasLimit: bigint;
  isSystemTx: boolean;
  data: Uint8Array;
}

function bad(message: string): never {
  throw new TernError('TX_DECODE', `deposit transaction: ${message}`);
}

function fixed(b: Uint8Array, len: number, what: string): Uint8Array {
  if (b.length !== len) bad(`${what} is ${b.length} bytes, want ${len}`);
  return b;
}

export function encodeDepositTx(tx: DepositTx): Uint8Array {
  fixed(tx.sourceHash, 32, 'sourceHash');
  fixed(tx.from, 20, 'from');
  if (tx.to !== undefined) fixed(tx.to, 20, 'to');
  if (tx.gasLimit > MAX_UINT64) bad('gas limit exceeds uint64');
  const body = rlpEncode([
    tx.sourceHash,
    tx.from,
    tx.to ?? new Uint8Array(0),
    bigintToBytes(tx.mint),
    bigintToBytes(tx.value),
    bigintToBytes(tx.gasLimit),
    tx.isSystemTx ? Uint8Array.of(1) : new Uint8Array(0),
    tx.data,
  ]);
  const out = new Uint8Array(body.length + 1);
  out[0] = DEPOSIT_TX_TYPE;
  out.set(body, 1);
  return out;
}

function uint(f: RlpDecoded[], i: number, what: string, max: bigint): bigint {
  const n = bytesToBigint(asBytes(f[i], what), what);
  if (n > max) bad(`${what} overflows`);
  return n;
}

export function decodeDepositTx(raw: Uint8Array): DepositTx {
  if (raw[0] !== DEPOSIT_TX_TYPE) bad(`type byte is ${raw[0]}, want 0x7e`);
  const f = asList(rlpDecode(raw.subarray(1)), 'deposit transaction');
  if (f.length !== 8) bad(`has ${f.length} fields, want 8`);
  const to = asBytes(f[2], 'to');
  const sys = asBytes(f[6], 'isSystemTx');
  // RLP booleans are canonical: empty string (false) or the single byte 0x01 (true).
  if (sys.length > 1 || (sys.length === 1 && sys[0] !== 1)) bad('isSystemTx is not a boolean');
  return {
    sourceHash: fixed(asBytes(f[0], 'sourceHash'), 32, 'sourceHash'),
    from: fixed(asBytes(f[1], 'from'), 20, 'from'),
    to: to.length === 0 ? undefined : fixed(to, 20, 'to'),
    mint: uint(f, 3, 'mint', MAX_UINT256),
    value: uint(f, 4, 'value', MAX_UINT256),
    gasLimit: uint(f, 5, 'gas', MAX_UINT64),
    isSystemTx: sys.length === 1,
    data: asBytes(f[7], 'data'),
  };
}

/** The transaction hash: keccak256 of the full typed encoding, as for any EIP-2718 transaction. */
export function depositTxHash(raw: Uint8Array): Uint8Array {
  return keccak256(raw);
}
