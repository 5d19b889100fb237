// EIP-7702 set-code authorizations: the delegation designator, the authorization's signing hash, and the checks on
// its signature values. Recovering the authority (secp256k1) is left to the caller, which picks the backend.
import { rlpEncode } from '../../rlp.js';

/** Code of a delegated account starts with this: 0xef0100 ‖ address. */
export const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
/** EIP-7702 MAGIC, the prefix of the authorization's signing payload. */
export const SET_CODE_AUTH_MAGIC = 0x05;

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_HALF_N = SECP256K1_N >> 1n;
const MAX_UINT64 = (1n << 64n) - 1n;

/** The 20-byte delegate of a delegation designator (exactly 23 bytes, 0xef0100 ‖ address), else undefined. */
export function parseDelegation(code: Uint8Array): Uint8Array | undefined {
  if (code.length !== 23 || code[0] !== 0xef || code[1] !== 0x01 || code[2] !== 0x00) return undefined;
  return code.subarray(3);
}

/** The designator code that delegates to `address`. */
export function delegationCode(address: Uint8Array): Uint8Array {
  const out = new Uint8Array(23);
  out.set(DELEGATION_PREFIX, 0);
  out.set(address, 3);
  return out;
}

/** A decoded authorization tuple with its integers read. */
export interface Authorization {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

function toBigint(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  let hex = '0x';
  for (let i = 0; i < b.length; i++) hex += (b[i] as number).toString(16).padStart(2, '0');
  return BigInt(hex);
}

/** Reads the bytes form [chainId, address, nonce, yParity, r, s] (@ethereumjs/tx's authorizationList items). */
export function readAuthorization(item: readonly Uint8Array[]): Authorization {
  return {
    chainId: toBigint(item[0] ?? new Uint8Array(0)),
    address: item[1] ?? new Uint8Array(20),
    nonce: toBigint(item[2] ?? new Uint8Array(0)),
    yParity: toBigint(item[3] ?? new Uint8Array(0)),
    r: toBigint(item[4] ?? new Uint8Array(0)),
    s: toBigint(item[5] ?? new Uint8Array(0)),
  };
}

/** The signed payload: MAGIC ‖ rlp([chainId, address, nonce]); hash it with keccak-256 to get the sighash. */
export function authorizationSigningPayload(auth: Authorization): Uint8Array {
  const body = rlpEncode([auth.chainId, auth.address, auth.nonce]);
  const out = new Uint8Array(body.length + 1);
  out[0] = SET_CODE_AUTH_MAGIC;
  out.set(body, 1);
  return out;
}

/** geth's ValidateSignatureValues with homestead rules: 0 < r, s < n, s ≤ n/2, yParity 0 or 1. */
export function hasValidSignatureValues(auth: Authorization): boolean {
  return (
    (auth.yParity === 0n || auth.yParity === 1n) &&
    auth.r >= 1n &&
    auth.s >= 1n &&
    auth.r < SECP256K1_N &&
    auth.s <= SECP256K1_HALF_N
  );
}

/** EIP-2681: an authority nonce of 2^64-1 cannot be bumped. */
export function nonceCanIncrease(nonce: bigint): boolean {
  return nonce < MAX_UINT64;
}
