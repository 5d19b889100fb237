// Sender recovery of one signed transaction in its consensus encoding (legacy RLP list or EIP-2718 envelope of
// types 1-4): rebuild the signing hash, check the signature values, recover the public key with libsecp256k1
// (the `secp256k1` package, native), and take the address. Pure and synchronous: runs inside worker threads.

import { keccak256 } from '../../native/keccak.js';
import { TernError } from '../../primitives/errors.js';
import { asBytes, asList, bytesToBigint, type RlpDecoded, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { DEPOSIT_TX_TYPE, decodeDepositTx } from '../../primitives/tx/deposit/deposit.js';
import { secp256k1 } from '../crypto/secp256k1.js';
import { rawSignature } from './rawSigning.js';

export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = SECP256K1_N / 2n;

function bytes32(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = n;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export interface SigningData {
  /** keccak-256 of what the sender signed. */
  readonly hash: Uint8Array;
  readonly r: bigint;
  readonly s: bigint;
  readonly recid: number;
  /** Chain id the signature commits to; undefined for pre-EIP-155 legacy signatures. */
  readonly chainId: bigint | undefined;
}

/** Extracts the signing hash and signature of a transaction; throws TX_INVALID_SIGNATURE on malformed values. */
export function signingData(raw: Uint8Array): SigningData {
  if (raw.length === 0) throw new TernError('TX_DECODE', 'empty transaction');
  const type = raw[0] as number;
  if (type >= 0xc0) {
    const f = asList(rlpDecode(raw), 'legacy transaction');
    if (f.length !== 9) throw new TernError('TX_DECODE', `legacy transaction has ${f.length} fields, want 9`);
    const v = bytesToBigint(asBytes(f[6], 'v'), 'v');
    const r = bytesToBigint(asBytes(f[7], 'r'), 'r');
    const s = bytesToBigint(asBytes(f[8], 's'), 's');
    const unsigned = f.slice(0, 6) as RlpDecoded[];
    if (v === 27n || v === 28n) {
      return {
        hash: keccak256(rlpEncode(unsigned as Parameters<typeof rlpEncode>[0])),
        r,
        s,
        recid: Number(v - 27n),
        chainId: undefined,
      };
    }
    if (v < 35n) throw new TernError('TX_INVALID_SIGNATURE', `invalid legacy signature v value ${v}`);
    const chainId = (v - 35n) / 2n;
    const payload = [...unsigned, chainIdBytes(chainId), new Uint8Array(0), new Uint8Array(0)];
    return {
      hash: keccak256(rlpEncode(payload as Parameters<typeof rlpEncode>[0])),
      r,
      s,
      recid: Number(v - 35n - 2n * chainId),
      chainId,
    };
  }
  if (type < 1 || type > 4) throw new TernError('TX_TYPE_UNSUPPORTED', `transaction type ${type} not supported`);
  const f = asList(rlpDecode(raw.subarray(1)), `type-${type} transaction`);
  const want = { 1: 11, 2: 12, 3: 14, 4: 13 }[type] as number;
  if (f.length !== want)
    throw new TernError('TX_DECODE', `type-${type} transaction has ${f.length} fields, want ${want}`);
  const yParity = bytesToBigint(asBytes(f[want - 3], 'yParity'), 'yParity');
  if (yParity > 1n) throw new TernError('TX_INVALID_SIGNATURE', `invalid yParity ${yParity}`);
  const unsigned = rlpEncode(f.slice(0, want - 3) as Parameters<typeof rlpEncode>[0]);
  const pre = new Uint8Array(unsigned.length + 1);
  pre[0] = type;
  pre.set(unsigned, 1);
  return {
    hash: keccak256(pre),
    r: bytesToBigint(asBytes(f[want - 2], 'r'), 'r'),
    s: bytesToBigint(asBytes(f[want - 1], 's'), 's'),
    recid: Number(yParity),
    chainId: bytesToBigint(asBytes(f[0], 'chainId'), 'chainId'),
  };
}

function chainIdBytes(id: bigint): Uint8Array {
  if (id === 0n) return new Uint8Array(0);
  let hex = id.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** The address that signed `hash`, enforcing low-s (EIP-2) and the value ranges geth enforces. */
export function recoverAddress(d: SigningData): Uint8Array {
  if (d.r === 0n || d.r >= SECP256K1_N || d.s === 0n || d.s > HALF_N || d.recid > 1) {
    throw new TernError('TX_INVALID_SIGNATURE', 'invalid transaction v, r, s values');
  }
  const sig = new Uint8Array(64);
  sig.set(bytes32(d.r), 0);
  sig.set(bytes32(d.s), 32);
  return signerOf(sig, d.recid, d.hash);
}

/** The address whose key made the (range-checked) signature r‖s over `hash`. */
function signerOf(sig: Uint8Array, recid: number, hash: Uint8Array): Uint8Array {
  let pub: Uint8Array;
  try {
    pub = secp256k1.ecdsaRecover(sig, recid, hash, false);
  } catch {
    throw new TernError('TX_INVALID_SIGNATURE', 'invalid signature: public key not recoverable');
  }
  return keccak256(pub.subarray(1)).slice(12);
}

/**
 * The sender of a transaction; a deposit (0x7e) carries no signature and names its sender in `from`. Well-formed
 * signed transactions take the raw-bytes path (rawSigning.ts); whatever it leaves gets the full decode and its error.
 */
export function recoverSender(raw: Uint8Array): Uint8Array {
  if (raw[0] === DEPOSIT_TX_TYPE) return decodeDepositTx(raw).from;
  const fast = rawSignature(raw);
  if (fast !== undefined) return signerOf(fast.sig, fast.recid, fast.hash);
  return recoverAddress(signingData(raw));
}
