// EIP-155: a legacy transaction's v carries its chain id (v = chainId * 2 + 35 + yParity); 27/28 carry none.

/** The chain id a legacy transaction's v names, or undefined for an unprotected (27/28) or malformed v. */
export function legacyChainId(v: bigint): bigint | undefined {
  return v >= 35n ? (v - 35n) / 2n : undefined;
}
