// secp256k1 public-key recovery for what the state transition itself must recover (EIP-7702 authorities; senders
// are recovered before execution by the sender-recovery service), over the one secp256k1 loader
// (protocol/crypto/secp256k1.ts).

import { keccak256 } from '../../native/keccak.js';
import { secp256k1 as secp } from '../../protocol/crypto/secp256k1.js';

function writeWord(out: Uint8Array, at: number, v: bigint): void {
  for (let i = 31; i >= 0; i--) {
    out[at + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/**
 * The address whose key signed `hash` with (r, s, yParity), or undefined when no key recovers (invalid point,
 * r or s out of range). Range and malleability rules are the caller's to check first.
 */
export function recoverAddress(hash: Uint8Array, r: bigint, s: bigint, yParity: number): Uint8Array | undefined {
  const sig = new Uint8Array(64);
  writeWord(sig, 0, r);
  writeWord(sig, 32, s);
  let pub: Uint8Array;
  try {
    pub = secp.ecdsaRecover(sig, yParity, hash, false);
  } catch {
    return undefined;
  }
  return keccak256(pub.subarray(1)).subarray(12);
}
