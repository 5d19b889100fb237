// The gossip block-signing scheme of rollup-node-p2p.md ("Block signatures"): the sequencer signs
// keccak256(domain ‖ chain_id ‖ payload_hash), domain 32 zero bytes (v1), chain_id a big-endian uint256,
// payload_hash = keccak256(payload) of the gossiped payload bytes (gossipPayload.ts). Recovery is here too so the
// signer can check what a remote signer returned, and p2p validation can reuse it.

import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { secp256k1 as secp } from '../../protocol/crypto/secp256k1.js';

/** The v1 block-signing domain: all zero. */
export const SIGNING_DOMAIN_BLOCKS_V1: Uint8Array = new Uint8Array(32);

const MAX_U256 = (1n << 256n) - 1n;

export function uint256BE(n: bigint): Uint8Array {
  if (n < 0n || n > MAX_U256) throw new TernError('SIGNER_CHAIN_ID', `chain_id ${n} does not fit in 256 bits`);
  return Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
}

/** keccak256 of the payload bytes: the `payload_hash` part of the signed message. */
export function payloadHash(payload: Uint8Array): Uint8Array {
  return keccak256(payload);
}

/** keccak256(domain ‖ chain_id ‖ payload_hash): what the secp256k1 key signs. */
export function signingHash(domain: Uint8Array, chainId: bigint, payloadHashBytes: Uint8Array): Uint8Array {
  if (domain.length !== 32)
    throw new TernError('SIGNER_DOMAIN', `signing domain must be 32 bytes, got ${domain.length}`);
  if (payloadHashBytes.length !== 32) {
    throw new TernError('SIGNER_PAYLOAD_HASH', `payload hash must be 32 bytes, got ${payloadHashBytes.length}`);
  }
  const msg = new Uint8Array(96);
  msg.set(domain, 0);
  msg.set(uint256BE(chainId), 32);
  msg.set(payloadHashBytes, 64);
  return keccak256(msg);
}

/** The signing hash of a gossiped block payload (v1 domain). */
export function blockSigningHash(chainId: bigint, payload: Uint8Array): Uint8Array {
  return signingHash(SIGNING_DOMAIN_BLOCKS_V1, chainId, payloadHash(payload));
}

/** Lower-case 0x address of an uncompressed or compressed secp256k1 public key. */
export function addressOfPublicKey(pub: Uint8Array): string {
  const full = pub.length === 65 ? pub : secp.publicKeyConvert(pub, false);
  return `0x${Buffer.from(keccak256(full.subarray(1)).subarray(12)).toString('hex')}`;
}

/**
 * The address that produced a 65-byte `r ‖ s ‖ y_parity` signature over `hash`. y_parity must be 0 or 1 (the
 * spec's rule; 27/28 are not accepted). Throws SIGNER_BAD_SIGNATURE.
 */
export function recoverSigner(hash: Uint8Array, sig: Uint8Array): string {
  if (sig.length !== 65) throw new TernError('SIGNER_BAD_SIGNATURE', `signature must be 65 bytes, got ${sig.length}`);
  const v = sig[64] as number;
  if (v !== 0 && v !== 1) throw new TernError('SIGNER_BAD_SIGNATURE', `signature y_parity must be 0 or 1, got ${v}`);
  try {
    return addressOfPublicKey(secp.ecdsaRecover(sig.subarray(0, 64), v, hash, false));
  } catch (err) {
    throw new TernError('SIGNER_BAD_SIGNATURE', `cannot recover the signer: ${(err as Error).message}`);
  }
}
