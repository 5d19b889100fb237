// Batcher transactions for L1: the payload of a TxData (calldata, or one blob per frame), blob sidecars with c-kzg
// (commitments, proofs and versioned hashes), intrinsic gas, and signed EIP-1559 (type 2) and EIP-4844 (type 3)
// transactions in the form eth_sendRawTransaction takes (blob transactions with their sidecar).
import { createHash } from 'node:crypto';
import { TernError } from '../common/errors.js';
import { keccak256 } from '../native/keccak.js';
import { toHex as hex } from '../primitives/bytes.js';
import { type RlpInput, rlpEncode } from '../primitives/rlp.js';
import { encodeBlobData } from '../protocol/blob/blobData.js';
import { encodeBatcherData } from '../protocol/channel/frame.js';
import { load as loadKzg } from '../protocol/crypto/kzg.js';
import { secp256k1 as secp } from '../protocol/crypto/secp256k1.js';
import type { TxData } from './channelManager.js';

const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

export interface Signer {
  /** Lower-case 0x address. */
  readonly address: string;
  sign(hash: Uint8Array): { yParity: number; r: Uint8Array; s: Uint8Array };
}

export function signerFromPrivateKey(key: string): Signer {
  const priv = bytes(key);
  if (priv.length !== 32 || !secp.privateKeyVerify(priv)) {
    throw new TernError('BAD_PRIVATE_KEY', 'the private key is not a valid secp256k1 key');
  }
  const pub = secp.publicKeyCreate(priv, false);
  const address = hex(keccak256(pub.subarray(1)).subarray(12));
  return {
    address,
    sign(hash) {
      const { signature, recid } = secp.ecdsaSign(hash, priv);
      return { yParity: recid, r: signature.slice(0, 32), s: signature.slice(32, 64) };
    },
  };
}

/** What a TxData becomes on L1: calldata, or blob payloads (already blob-encoded, one per frame). */
export interface BatcherPayload {
  readonly calldata: Uint8Array;
  readonly blobs: readonly Uint8Array[];
}

export function batcherPayload(tx: TxData): BatcherPayload {
  if (!tx.useBlobs) return { calldata: encodeBatcherData(tx.frames), blobs: [] };
  return { calldata: new Uint8Array(0), blobs: tx.frames.map((f) => encodeBlobData(encodeBatcherData([f]))) };
}

export interface BlobSidecar {
  /** 0: one proof per blob (EIP-4844); 1: cell proofs (EIP-7594). */
  readonly version: 0 | 1;
  readonly blobs: readonly Uint8Array[];
  readonly commitments: readonly Uint8Array[];
  readonly proofs: readonly Uint8Array[];
  readonly versionedHashes: readonly Uint8Array[];
}

/** EIP-4844: 0x01 ‖ sha256(commitment)[1:]. */
export function kzgToVersionedHash(commitment: Uint8Array): Uint8Array {
  const h = new Uint8Array(createHash('sha256').update(commitment).digest());
  h[0] = 0x01;
  return h;
}

export function blobSidecar(blobs: readonly Uint8Array[], cellProofs: boolean): BlobSidecar {
  const kzg = loadKzg();
  const commitments = blobs.map((b) => kzg.blobToKzgCommitment(b));
  const proofs = cellProofs
    ? blobs.flatMap((b) => kzg.computeCellsAndKzgProofs(b)[1])
    : blobs.map((b, i) => kzg.computeBlobKzgProof(b, commitments[i] as Uint8Array));
  return {
    version: cellProofs ? 1 : 0,
    blobs,
    commitments,
    proofs,
    versionedHashes: commitments.map(kzgToVersionedHash),
  };
}

const TX_GAS = 21_000n;

/** Intrinsic gas of a plain call with this data, with Prague's calldata floor (EIP-7623). */
export function intrinsicGas(data: Uint8Array): bigint {
  let zeros = 0n;
  for (const b of data) if (b === 0) zeros++;
  const nonZeros = BigInt(data.length) - zeros;
  const standard = TX_GAS + zeros * 4n + nonZeros * 16n;
  const floor = TX_GAS + (zeros + nonZeros * 4n) * 10n;
  return standard > floor ? standard : floor;
}

export interface TxFees {
  readonly tipCap: bigint;
  readonly feeCap: bigint;
  /** Blob transactions only. */
  readonly blobFeeCap?: bigint;
}

export interface UnsignedTx {
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly to: string;
  readonly gasLimit: bigint;
  readonly data: Uint8Array;
  readonly sidecar?: BlobSidecar;
}

export interface SignedTx {
  /** What eth_sendRawTransaction takes (blob transactions in their network form, with the sidecar). */
  readonly raw: Uint8Array;
  /** The transaction hash (of the consensus form). */
  readonly hash: string;
}

function typed(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 1);
  out[0] = type;
  out.set(body, 1);
  return out;
}

/** Signs a type-2 transaction, or a type-3 one when there is a sidecar. */
export function signTx(tx: UnsignedTx, fees: TxFees, signer: Signer): SignedTx {
  const fields: RlpInput[] = [
    tx.chainId,
    tx.nonce,
    fees.tipCap,
    fees.feeCap,
    tx.gasLimit,
    bytes(tx.to),
    0n,
    tx.data,
    [],
  ];
  const type = tx.sidecar ? 3 : 2;
  if (tx.sidecar) {
    if (fees.blobFeeCap === undefined) throw new TernError('TX_BUILD', 'a blob transaction needs a blob fee cap');
    fields.push(fees.blobFeeCap, [...tx.sidecar.versionedHashes]);
  }
  const { yParity, r, s } = signer.sign(keccak256(typed(type, rlpEncode(fields))));
  // Signature values are integers: strip leading zero bytes.
  const signed: RlpInput[] = [...fields, yParity, BigInt(hex(r)), BigInt(hex(s))];
  const consensus = typed(type, rlpEncode(signed));
  const hash = hex(keccak256(consensus));
  if (!tx.sidecar) return { raw: consensus, hash };
  const sc = tx.sidecar;
  const wrapper: RlpInput[] =
    sc.version === 0
      ? [signed, [...sc.blobs], [...sc.commitments], [...sc.proofs]]
      : [signed, 1, [...sc.blobs], [...sc.commitments], [...sc.proofs]];
  return { raw: typed(3, rlpEncode(wrapper)), hash };
}
