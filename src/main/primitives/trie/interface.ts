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

/**
 * Nodes to persist, packed (one object however many nodes: an update can create 100k+ of them): node i has the
 * hash hashes[32i, 32i + 32) and the RLP rlps[offsets[i], offsets[i + 1]); offsets[0] is 0 and the last offset is
 * rlps.length. The arrays may be views into one larger buffer (the native result): packedNodes.ts reads, joins,
 * copies and lists the buffers to transfer.
 */
export interface PackedNodes {
  readonly hashes: Uint8Array;
  readonly rlps: Uint8Array;
  readonly offsets: Uint32Array;
}

/** One change to a trie: the key (for the state and storage tries, the keccak-256 of the address or slot) and the
 * new value, null (or empty) to delete. */
export type TrieUpdate = readonly [keyHash: Uint8Array, value: Uint8Array | null];

export interface TrieUpdateResult {
  root: Uint8Array;
  /**
   * Every node created by the update (each hashed once), the root included even when its RLP is under 32 bytes.
   * The arrays may share one buffer with other data: copy them (copyNodes) before transferring it if views into
   * them are kept.
   * Nodes the update made obsolete are not listed for deletion: as in geth's hash scheme, a node may be shared by
   * other roots (earlier states, other storage tries), so old nodes stay until a pruner decides otherwise.
   */
  newNodes: PackedNodes;
}
