// The flat state seen by execution: what it reads (StateReader, backed by the database's sync reads) and what a
// block's execution hands on (StateDiff, consumed by the trie commitment in ./trie/ and by the database writer).
// Execution never touches a trie.

/** One account as the database stores it in its flat tables. */
export interface AccountRecord {
  nonce: bigint;
  balance: bigint;
  /** keccak-256 of the code; KECCAK256_NULL (c5d246…) for an account without code. */
  codeHash: Uint8Array;
  /**
   * Root of the account's storage trie, when the reader knows it. Absent means empty storage. Execution only
   * asks whether it is the empty root (EIP-7610: CREATE onto an address that has storage collides).
   */
  storageRoot?: Uint8Array;
}

/** Synchronous reads of the committed state (LMDB reads are synchronous; no promise per slot). */
export interface StateReader {
  /** The account at a 20-byte address, or undefined when it does not exist. */
  getAccount(address: Uint8Array): AccountRecord | undefined;
  /** The value of a 32-byte storage slot; 0n when unset or when the account does not exist. */
  getStorage(address: Uint8Array, slot: Uint8Array): bigint;
  /** The code with this hash (empty for KECCAK256_NULL). Throws if the database lacks it. */
  getCode(codeHash: Uint8Array): Uint8Array;
}

/** The end-of-block value of one changed account. */
export interface AccountDiff {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  /**
   * Slots written during the block, keyed by `0x` + 64 lowercase hex digits of the 32-byte slot, with their final
   * values; 0n means the slot is deleted. When `storageCleared` is set, every nonzero slot the account now holds is
   * listed here.
   */
  storage: Map<string, bigint>;
  /**
   * The account's storage was wiped during the block (self-destructed or removed as empty, then re-created, or
   * created over a leftover): drop the old storage trie entirely before applying `storage`.
   */
  storageCleared: boolean;
}

/**
 * Everything a block changed. Keys are lowercase `0x`-prefixed hex: 20-byte addresses, 32-byte code hashes.
 * An account mapped to null was deleted (it existed before the block and does not now). Accounts that did not
 * exist before and do not exist after are left out. `codes` holds the new code referenced by the accounts here.
 */
export interface StateDiff {
  accounts: Map<string, AccountDiff | null>;
  codes: Map<string, Uint8Array>;
}
