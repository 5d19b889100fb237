// Deposit source hashes (OP deposits spec): keccak256(domain || keccak256(payload)), where the domain separates
// user deposits (0), L1-info deposits (1) and network-upgrade deposits (2), so no two deposits share a hash.
import { keccak256 } from '../../../native/keccak.js';

function word(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = n;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function domainHash(domain: bigint, inner: Uint8Array): Uint8Array {
  const buf = new Uint8Array(64);
  buf.set(word(domain), 0);
  buf.set(inner, 32);
  return keccak256(buf);
}

function blockAndIndex(l1BlockHash: Uint8Array, index: bigint): Uint8Array {
  const buf = new Uint8Array(64);
  buf.set(l1BlockHash, 0);
  buf.set(word(index), 32);
  return keccak256(buf);
}

/** A user deposit: the L1 block holding the TransactionDeposited log and the log's index within that block. */
export function userDepositSourceHash(l1BlockHash: Uint8Array, logIndex: bigint): Uint8Array {
  return domainHash(0n, blockAndIndex(l1BlockHash, logIndex));
}

/** The L1-info deposit of the L2 block `seqNumber` blocks into the epoch of `l1BlockHash`. */
export function l1InfoDepositSourceHash(l1BlockHash: Uint8Array, seqNumber: bigint): Uint8Array {
  return domainHash(1n, blockAndIndex(l1BlockHash, seqNumber));
}

/** A network-upgrade deposit, named by its UTF-8 intent string (e.g. "Ecotone: L1 Block Deployment"). */
export function upgradeDepositSourceHash(intent: string): Uint8Array {
  return domainHash(2n, keccak256(new TextEncoder().encode(intent)));
}
