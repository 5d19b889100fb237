// What every thread that opens the chain database agrees on: the LMDB environment settings (lmdb-js shares one
// environment between the threads of a process) and the key of a trie node, the one table the trie-hasher thread
// reads. They live in protocol/ because that thread (src/workers/trie.ts) may not import common/, where the LMDB
// store is; the rest of the layout is the chain schema's (exec/db/schema.ts), which takes the trie-node key from here.
import { TernError } from '../../primitives/errors.js';

/**
 * Environment settings every opener of a tern LMDB directory uses (lmdb-js refuses to mix sync modes on one
 * environment, so a reader in another thread must open it the same way; open it through LmdbStore).
 *
 * Crash safety: LMDB is copy-on-write; a transaction's pages are written next to the old ones and become current
 * only when the meta page pointing at the new root is written, so a torn commit is impossible by design. Durability
 * is what the flags decide:
 * - `overlappingSync: false` (lmdb-js turns it on by default off Windows): the classic LMDB commit, which
 *   fdatasyncs the data pages, then writes and syncs the meta page, inside the commit. A batch's commit promise
 *   therefore resolves only once the batch is on disk, with no dependence on lmdb-js's boot-id recovery logic.
 * - `noSync: false`, `noMetaSync: false`, `mapAsync: false` (the defaults, stated so nobody flips them): without
 *   them a power loss could undo or tear recent commits.
 * - `useWritemap: false`: writes go through private pages, so a stray pointer cannot scribble on the map.
 * - `eventTurnBatching` stays on: batches committed in the same event turn share one LMDB transaction, which is still
 *   all-or-nothing for each of them; commits land in call order.
 * - `keyEncoding`/`encoding` 'binary': raw bytes, keys ordered as unsigned bytes; no compression, no caching.
 */
export const LMDB_ENV_SETTINGS = {
  keyEncoding: 'binary',
  encoding: 'binary',
  overlappingSync: false,
  noSync: false,
  noMetaSync: false,
  mapAsync: false,
  useWritemap: false,
  eventTurnBatching: true,
  compression: false,
  cache: false,
} as const;

/** The trie-node table's key prefix: 't' nodeHash(32) → trie node RLP (hash scheme). */
export const TRIE_NODE_PREFIX = 0x74;

/** 't' nodeHash */
export function trieNodeKey(nodeHash: Uint8Array): Uint8Array {
  // The code is common/db's DbErrorCode.invalidArgument (common/ is above this layer).
  if (!(nodeHash instanceof Uint8Array) || nodeHash.length !== 32)
    throw new TernError('DB_INVALID_ARGUMENT', 'trie node hash must be 32 bytes');
  const out = new Uint8Array(33);
  out[0] = TRIE_NODE_PREFIX;
  out.set(nodeHash, 1);
  return out;
}
