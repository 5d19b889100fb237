// Alt-DA input commitments (specs experimental/alt-da.md "Input Commitment Submission"). A batcher transaction
// whose data starts with version byte 1 carries an encoded commitment instead of frames:
//   tx_data             = 0x01 ++ encoded_commitment
//   encoded_commitment  = commitment_type ++ commitment_bytes
//   type 0 (keccak256)  : commitment_bytes = keccak256(input), exactly 32 bytes
//   type 1 (da-service) : commitment_bytes = da_layer_byte ++ payload, opaque to the node
// The DA server is addressed with the encoded commitment (type byte included, no version byte).

import { keccak256 } from '../../native/keccak.js';
import { TernError } from '../../primitives/errors.js';

/** Version byte of batcher-transaction data that carries a commitment. */
export const TX_DATA_VERSION_ALTDA = 1;
/** Keccak inputs larger than this are skipped by derivation (131072 less 400: geth's mempool limit). */
export const MAX_INPUT_SIZE = 130672;

export const KECCAK_COMMITMENT = 0;
export const GENERIC_COMMITMENT = 1;
export type CommitmentType = typeof KECCAK_COMMITMENT | typeof GENERIC_COMMITMENT;

/** Names used by the rollup config's `da_commitment_type`. */
export const COMMITMENT_TYPE_NAMES: Readonly<Record<string, CommitmentType>> = {
  KeccakCommitment: KECCAK_COMMITMENT,
  GenericCommitment: GENERIC_COMMITMENT,
};

export interface Commitment {
  readonly type: CommitmentType;
  /** The bytes after the type byte: a keccak256 hash, or da_layer_byte ++ payload. */
  readonly body: Uint8Array;
}

function invalid(message: string): TernError {
  return new TernError('ALTDA_COMMITMENT_INVALID', `invalid alt-DA commitment: ${message}`);
}

export function commitmentTypeFromName(name: string): CommitmentType {
  const t = COMMITMENT_TYPE_NAMES[name];
  if (t === undefined) throw invalid(`unknown commitment type ${JSON.stringify(name)}`);
  return t;
}

export function keccakCommitment(input: Uint8Array): Commitment {
  return { type: KECCAK_COMMITMENT, body: keccak256(input) };
}

export function genericCommitment(body: Uint8Array): Commitment {
  if (body.length === 0) throw invalid('empty generic commitment');
  return { type: GENERIC_COMMITMENT, body };
}

/** Decodes `commitment_type ++ commitment_bytes`. */
export function decodeCommitment(encoded: Uint8Array): Commitment {
  if (encoded.length === 0) throw invalid('empty');
  const type = encoded[0] as number;
  const body = encoded.subarray(1);
  if (type === KECCAK_COMMITMENT) {
    if (body.length !== 32) throw invalid(`keccak256 commitment of ${body.length} bytes, want 32`);
    return { type, body: Uint8Array.from(body) };
  }
  if (type === GENERIC_COMMITMENT) return genericCommitment(Uint8Array.from(body));
  throw invalid(`unknown commitment type ${type}`);
}

/** `commitment_type ++ commitment_bytes`: the DA server's key. */
export function encodeCommitment(c: Commitment): Uint8Array {
  const out = new Uint8Array(1 + c.body.length);
  out[0] = c.type;
  out.set(c.body, 1);
  return out;
}

/** The batcher transaction's calldata: version byte 1 ++ encoded commitment. */
export function commitmentTxData(c: Commitment): Uint8Array {
  const enc = encodeCommitment(c);
  const out = new Uint8Array(1 + enc.length);
  out[0] = TX_DATA_VERSION_ALTDA;
  out.set(enc, 1);
  return out;
}

/** Decodes batcher-transaction data that starts with version byte 1. */
export function decodeCommitmentTxData(data: Uint8Array): Commitment {
  if (data[0] !== TX_DATA_VERSION_ALTDA) throw invalid(`tx data version ${data[0]}, want 1`);
  return decodeCommitment(data.subarray(1));
}

/** Whether `input` is the data a commitment commits to (generic commitments are verified by the DA server). */
export function verifyCommitment(c: Commitment, input: Uint8Array): boolean {
  if (c.type !== KECCAK_COMMITMENT) return true;
  return Buffer.from(keccak256(input)).equals(Buffer.from(c.body));
}

export function commitmentHex(c: Commitment): string {
  return `0x${Buffer.from(encodeCommitment(c)).toString('hex')}`;
}
