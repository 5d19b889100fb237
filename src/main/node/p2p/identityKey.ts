// The node's P2P identity: a secp256k1 private key kept as hex in --p2p.priv.path, created on first start so
// the peer ID stays the same across restarts.
import { randomBytes } from 'node:crypto';
import { UsageError } from '../../common/errors.js';
import { obtainHex32File } from '../../common/secretFile.js';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function scalar(key: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(key).toString('hex')}`);
}

function isValidKey(key: Uint8Array): boolean {
  const k = scalar(key);
  return k > 0n && k < SECP256K1_N;
}

function newKey(): Uint8Array {
  for (;;) {
    const key = randomBytes(32);
    if (isValidKey(key)) return key;
  }
}

export function loadOrCreateIdentityKey(path: string): { key: Uint8Array; created: boolean } {
  const { secret, created } = obtainHex32File(path, 'P2P private key', newKey);
  if (!isValidKey(secret)) {
    throw new UsageError(
      `P2P private key file ${path} does not hold a valid secp256k1 key (zero or not below the curve order)`,
    );
  }
  return { key: secret, created };
}
