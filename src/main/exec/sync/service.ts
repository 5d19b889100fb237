// The sync service: one full sync at a time towards the newest target the node was given.
//
//   const sync = startSync({ peers, store, importChain, logger, exclusive, mode });
//   sync.target(hash);        // --synctarget at start; the Engine API on an unknown head or parent
//   sync.progress();          // eth_syncing: { startingBlock, currentBlock, highestBlock } or undefined
//   sync.status();            // the state, target and last error, for logs and tests
//   await sync.close();       // aborts the run (blocks already imported stay)
//
// A new target while a run is under way does not restart it: the run finishes (its blocks are the new target's
// ancestors in the usual case, a chain moving forward) and the next run starts from there to the newest target;
// only a run still looking for a target header no peer has gives way at once. `mode: 'snap'` runs full sync and
// says so once: the snap client is not built yet.
import type { Logger } from '../../common/logger/index.js';
import type { Block } from '../../primitives/block/block.js';
import { equalBytes, toHex } from '../../primitives/bytes.js';
import type { ChainStore } from '../chain/chainStore.js';
import type { SenderResult } from '../senders/interface.js';
import {
  type FullSyncDeps,
  type FullSyncLimits,
  fullSync,
  fullSyncDefaults,
  type SyncProgress,
  type SyncTarget,
} from './fullSync.js';
import type { PeerSet } from './peer.js';
import { PeerTracker, type PeerTrackerOptions, peerTrackerDefaults } from './peerTracker.js';

export type SyncMode = 'full' | 'snap';

export interface StartSyncOptions {
  peers: PeerSet;
  store: ChainStore;
  /** Where the sync's blocks are imported: the block executor's importChain (FullSyncDeps.importChain). */
  importChain: FullSyncDeps['importChain'];
  logger: Logger;
  /** The chain lock shared with the Engine API (EngineApi.exclusive); default: the sync's own. */
  exclusive?: (<T>(fn: () => Promise<T>) => Promise<T>) | undefined;
  /** Sender recovery on a worker pool, started as blocks arrive. */
  recoverSenders?: ((txs: readonly Uint8Array[]) => Promise<SenderResult[]>) | undefined;
  /** --syncmode; 'snap' falls back to full sync with a logged notice. */
  mode?: SyncMode | undefined;
  limits?: Partial<FullSyncLimits> | undefined;
  peerLimits?: Partial<PeerTrackerOptions> | undefined;
}

export interface SyncStatus {
  state: 'idle' | 'syncing' | 'failed';
  /** The block being synced to (or the last failed one). */
  target: string | undefined;
  error: string | undefined;
}

export interface SyncHandle {
  /** Sync to this block (the block itself when known); a target already held with state is ignored. */
  target(hash: Uint8Array, block?: Block): void;
  /** eth_syncing's numbers while a run is under way, else undefined. */
  progress(): SyncProgress | undefined;
  status(): SyncStatus;
  /** Resolves once no run is under way and no target waits. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

function serialLock(): <T>(fn: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>) => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };
}

export function startSync(opts: StartSyncOptions): SyncHandle {
  const logger = opts.logger;
  if (opts.mode === 'snap')
    logger.warn('Snap sync is not built: syncing in full mode (every block downloaded and executed)', {
      syncmode: 'snap',
    });
  const tracker = new PeerTracker(opts.peers, { ...peerTrackerDefaults, ...opts.peerLimits });
  const abort = new AbortController();
  let progress: SyncProgress | undefined;
  let current: SyncTarget | undefined;
  let waiting: SyncTarget | undefined;
  let failed: { target: string; error: string } | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  const deps = {
    peers: tracker,
    store: opts.store,
    importChain: opts.importChain,
    logger,
    exclusive: opts.exclusive ?? serialLock(),
    recoverSenders: opts.recoverSenders,
    limits: { ...fullSyncDefaults, ...opts.limits },
    progress: (p: SyncProgress) => {
      progress = p;
    },
  };

  const loop = async () => {
    while (waiting !== undefined && !closed) {
      const target = waiting;
      current = target;
      waiting = undefined;
      try {
        const outcome = await fullSync(deps, target, abort.signal, () => waiting !== undefined);
        if (outcome === 'synced') {
          failed = undefined;
          logger.info('Sync reached its target', { hash: toHex(target.hash), head: opts.store.head().number });
        } else logger.info('Sync target replaced before any peer had it', { hash: toHex(target.hash) });
      } catch (err) {
        if (closed) break;
        failed = { target: toHex(target.hash), error: (err as Error).message };
        logger.error('Sync failed', { target: toHex(target.hash), error: (err as Error).message });
      } finally {
        current = undefined;
        progress = undefined;
      }
    }
  };

  return {
    target(hash, block) {
      if (closed || opts.store.hasState(hash)) return;
      if (current !== undefined && equalBytes(current.hash, hash)) return;
      waiting = { hash, block };
      if (running === undefined)
        running = loop().finally(() => {
          running = undefined;
        });
    },
    progress: () => progress,
    status: () => ({
      state: current !== undefined || waiting !== undefined ? 'syncing' : failed !== undefined ? 'failed' : 'idle',
      target: current ? toHex(current.hash) : waiting ? toHex(waiting.hash) : failed?.target,
      error: failed?.error,
    }),
    async idle() {
      while (running !== undefined) await running;
    },
    async close() {
      closed = true;
      abort.abort(new Error('sync closed'));
      await running;
      tracker.close();
    },
  };
}
