// What the incremental trie reads its nodes from, and what an update hands back to persist.

/**
 * Trie nodes by hash (keccak-256 of the node's RLP). Synchronous: the store is an LMDB read snapshot or an
 * in-memory map. The bytes returned must not change while an update that read them runs (copy out of any reused
 * buffer, as LMDB's `getBinaryFast` would hand back).
 */
export interface NodeReader {
  get(hash: Uint8Array): Uint8Array | undefined;
}

/** A node to persist: its hash and its RLP. */
export type TrieNode = [hash: Uint8Array, rlp: Uint8Array];

/** One change to a trie: the key (for the state and storage tries, the keccak-256 of the address or slot) and the
 * new value, null (or empty) to delete. */
export type TrieUpdate = readonly [keyHash: Uint8Array, value: Uint8Array | null];

export interface TrieUpdateResult {
  root: Uint8Array;
  /**
   * Every node created by the update (each hashed once), the root included even when its RLP is under 32 bytes.
   * Hashes and RLPs are views into a few shared buffers: copy them before transferring their buffers.
   * Nodes the update made obsolete are not listed for deletion: as in geth's hash scheme, a node may be shared by
   * other roots (earlier states, other storage tries), so old nodes stay until a pruner decides otherwise.
   */
  newNodes: TrieNode[];
}
