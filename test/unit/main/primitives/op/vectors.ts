// Shared third-party vectors for the op/ tests.

/** op-geth's emptyTx (transaction_test.go): an unsigned legacy transaction to 0x095e7b…, every other field zero. */
export const EMPTY_TX = Uint8Array.from(
  Buffer.from('dd80808094095e7baea6a6c7c4c2dfeb977efac326af552d878080808080', 'hex'),
);
