// EIP-4844 blob transaction rules that do not depend on state: versioned hashes and counts.

/** The version byte of a KZG versioned hash (VERSIONED_HASH_VERSION_KZG). */
export const VERSIONED_HASH_VERSION_KZG = 0x01;

/** A versioned hash is 32 bytes starting with the KZG version byte; `hash` is `0x`-prefixed hex or bytes. */
export function isValidVersionedHash(hash: string | Uint8Array): boolean {
  if (typeof hash === 'string') {
    return (
      hash.length === 66 &&
      hash.startsWith('0x') &&
      Number.parseInt(hash.slice(2, 4), 16) === VERSIONED_HASH_VERSION_KZG
    );
  }
  return hash.length === 32 && hash[0] === VERSIONED_HASH_VERSION_KZG;
}
