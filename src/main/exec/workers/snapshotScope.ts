// A call's scope read by the call worker itself from an LMDB read snapshot of its own: accounts, slots, code and
// block hashes without a round trip to the coordinator, so a call never waits for the coordinator's event loop
// (busy with engine_newPayload during an import). The coordinator resolves the block (tag, number or hash) in its
// own view and hands over the pin (hash, header: number and state root); the worker opens a read transaction, which
// is at least as new as the coordinator's view, and reads exactly the pinned block's state: the flat state when the
// pinned block is still the head of its snapshot, the trie under the pinned state root when a new head committed
// meanwhile. lmdb-js shares the environment between the threads of a process; the worker opens it once, read-only.
// Where no other thread can see the state (the in-memory store of --dev, a computed pending block) the coordinator
// serves the reads instead (../evm/remoteScope.ts).
import { TernError } from '../../common/errors.js';
import type { Header } from '../../primitives/block/header.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import { ChainView, equalBytes } from '../chain/chainView.js';
import { type Database, openOnWorkerThread } from '../db/open.js';
import type { CallScope } from '../evm/call.js';
import type { SnapshotPin } from '../evm/remoteScope.js';
import { TrieStateReader } from '../state/trieReader.js';

/** Decoded headers for BLOCKHASH and the pin's check: a small cache per worker thread. */
const BLOCK_CACHE_BYTES = 4 * 1024 * 1024;

let opened: { key: string; db: Database } | undefined;

/** This thread's read-only handle on the LMDB environment at `paths` (opened once, reopened for another path). */
export function callDatabase(paths: SnapshotPin['paths']): Database {
  if (opened?.key === paths.chaindata) return opened.db;
  const previous = opened;
  opened = undefined;
  void previous?.db.close();
  const db = openOnWorkerThread(
    { ...paths, ancient: paths.ancientChain },
    { readonly: true, blockCacheBytes: BLOCK_CACHE_BYTES },
  );
  opened = { key: paths.chaindata, db };
  return db;
}

/** Blocks BLOCKHASH can reach (EIP-210's window): how far an ancestry walk goes. */
const BLOCKHASH_WINDOW = 256n;

/**
 * The scope of the pinned block read from a fresh snapshot of this thread; `release` ends the snapshot. Throws
 * CALL_STATE_PIN when the snapshot does not hold the pinned block with the header the coordinator resolved.
 */
export function snapshotScope(
  pin: SnapshotPin,
  header: Header,
  config: ChainConfig,
): { scope: CallScope; release(): void } {
  const db = callDatabase(pin.paths);
  // This thread's read transaction may predate the coordinator's view: renew it so the snapshot holds the pin.
  db.kv.renewReads?.();
  const view = ChainView.open(db, config);
  try {
    const stored = view.headerByHash(pin.hash);
    if (stored === undefined || stored.number !== header.number || !equalBytes(stored.stateRoot, header.stateRoot))
      throw new TernError('CALL_STATE_PIN', `block ${header.number} is not stored as the call resolved it`);
    const reader = equalBytes(view.head().hash, pin.hash)
      ? view.state()
      : new TrieStateReader(view.state(), header.stateRoot);
    return {
      scope: { header, reader, getBlockHash: blockHashes(view, pin.hash, header) },
      release: () => unpin(db, view),
    };
  } catch (err) {
    unpin(db, view);
    throw err;
  }
}

/**
 * Ends the call's snapshot and this thread's read transaction with it: lmdb-js keeps a finished read transaction
 * open until it is reset, and an idle worker would otherwise keep the pages of its last call's snapshot from being
 * reused by every write after it.
 */
function unpin(db: Database, view: ChainView): void {
  view.release();
  db.kv.renewReads?.();
}

/**
 * BLOCKHASH on the pinned block's own chain: the canonical index while the pinned block is canonical in the
 * snapshot (a reorg may have moved it since the coordinator resolved it), otherwise its ancestry by parent hash.
 */
function blockHashes(view: ChainView, hash: Uint8Array, header: Header): (n: bigint) => Uint8Array | undefined {
  if (equalBytes(view.canonicalHash(header.number), hash)) return (n) => view.canonicalHash(n);
  const ancestors = new Map<bigint, Uint8Array>();
  let cursor = header;
  return (n) => {
    if (n >= header.number || n < 0n || header.number - n > BLOCKHASH_WINDOW) return undefined;
    while (cursor.number > n + 1n && !ancestors.has(n)) {
      const parent = view.headerByHash(cursor.parentHash);
      if (parent === undefined) return undefined;
      ancestors.set(cursor.number - 1n, cursor.parentHash);
      cursor = parent;
    }
    if (cursor.number === n + 1n) ancestors.set(n, cursor.parentHash);
    return ancestors.get(n);
  };
}
