// A published RIP-7212 (P256VERIFY) test vector, for the tests that call the precompile through eth_call: geth's
// core/vm/testdata/precompiles/p256Verify.json, first case (wycheproof ecdsa_secp256r1_sha256_p1363_test.json,
// EcdsaP1363Verify SHA-256 #1): hash ‖ r ‖ s ‖ x ‖ y of a valid signature; expected output 0x…01, gas 3450.

/** The precompile's address on OP chains from Fjord. */
export const P256VERIFY_ADDRESS = '0x0000000000000000000000000000000000000100';

export const P256VERIFY_VALID_INPUT =
  '0xbb5a52f42f9c9261ed4361f59422a1e30036e7c32b270c8807a419feca6050232ba3a8be6b94d5ec80a6d9d1190a436effe50d85a1eee8' +
  '59b8cc6af9bd5c2e184cd60b855d442f5b3c7b11eb6c4e0ae7525fe710fab9aa7c77a67f79e6fadd762927b10512bae3eddcfe467828128b' +
  'ad2903269919f7086069c8c4df6c732838c7787964eaac00e5921fb1498a60f4606766b3d9685001558d1a974e7341513e';

/** The precompile's answer to a valid signature: 32 bytes, the last one 1. */
export const P256VERIFY_SUCCESS = `0x${'00'.repeat(31)}01`;
