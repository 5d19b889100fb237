// Trie-hasher task module (src/main/exec/hasher/pooled.ts): one thread, tasks in order. The thread opens the chain's
// LMDB environment read-only (lmdb-js shares an environment between threads) and keeps, across tasks, the node cache
// and the layers of new nodes of blocks the caller has not written yet (HasherCore).
import { open } from 'lmdb';
import { HasherCore } from '../main/primitives/trie/hasherCore.js';
import type { NodeReader } from '../main/primitives/trie/interface.js';
import { LMDB_ENV_SETTINGS, trieNodeKey } from '../main/protocol/db/sharedEnv.js';
import { commitmentBuffers, decodeDiff, type PackedCommitment, packCommitment } from '../main/protocol/hasher/codec.js';
import { fail, ok, reply, type TaskReply, type TaskResult } from './task.js';

type Env = ReturnType<typeof open<Uint8Array, Uint8Array>>;

/** Every task names the environment and cache size (the first task opens them) and the layers released since. */
export interface TrieTaskBase {
  /** The LMDB environment's directory (<datadir>/chaindata). */
  path: string;
  cacheBytes: number;
  release: number[];
}

export interface CommitInput extends TrieTaskBase {
  stateRoot: Uint8Array;
  /** codec.ts encodeDiff */
  diff: Uint8Array;
  /** Keep the new nodes as this layer until released; null: put them in the cache. */
  layer: number | null;
}

export interface PrefetchInput extends TrieTaskBase {
  stateRoot: Uint8Array;
  /** 20 bytes per address. */
  addresses: Uint8Array;
}

export interface StatsOutput {
  hits: number;
  misses: number;
  size: number;
  bytes: number;
  maxBytes: number;
  layers: number;
}

let state: { path: string; env: Env; core: HasherCore; db: NodeReader } | undefined;

function setup(input: TrieTaskBase): { core: HasherCore; db: NodeReader } {
  if (state === undefined || state.path !== input.path) {
    const env = open<Uint8Array, Uint8Array>(input.path, { ...LMDB_ENV_SETTINGS, readOnly: true });
    const db: NodeReader = {
      get(hash) {
        const v = env.get(trieNodeKey(hash));
        return v === undefined ? undefined : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      },
    };
    state = { path: input.path, env, core: new HasherCore(input.cacheBytes), db };
  }
  // Reads see every commit made before this task (a released layer's block is written): lmdb-js otherwise reuses its
  // read transaction until its next timer turn.
  state.env.resetReadTxn();
  state.core.release(input.release);
  return state;
}

export function commit(input: CommitInput): TaskReply<PackedCommitment> | TaskResult<PackedCommitment> {
  try {
    const { core, db } = setup(input);
    const result = core.commit(db, input.stateRoot, decodeDiff(input.diff), input.layer ?? undefined);
    // A kept layer reads the new nodes where they lie: send copies then, the arrays themselves otherwise.
    const packed = packCommitment(result, { copyNodes: input.layer !== null });
    return reply(ok(packed), commitmentBuffers(packed));
  } catch (err) {
    return fail(err);
  }
}

/** The 20-byte addresses packed back to back in a prefetch or warm task. */
function addressesOf(input: PrefetchInput): Uint8Array[] {
  const addresses: Uint8Array[] = [];
  for (let i = 0; i + 20 <= input.addresses.length; i += 20) addresses.push(input.addresses.subarray(i, i + 20));
  return addresses;
}

export function prefetch(input: PrefetchInput): TaskResult<{ walked: number }> {
  try {
    const { core, db } = setup(input);
    return ok({ walked: core.prefetch(db, input.stateRoot, addressesOf(input)) });
  } catch (err) {
    return fail(err);
  }
}

/** Accounts read ahead for the next commit on `stateRoot` (HasherCore.warm). */
export function warm(input: PrefetchInput): TaskResult<{ read: number }> {
  try {
    const { core, db } = setup(input);
    return ok({ read: core.warm(db, input.stateRoot, addressesOf(input)) });
  } catch (err) {
    return fail(err);
  }
}

/** The node cache's figures and the layers kept (tests, metrics). */
export function stats(input: TrieTaskBase): TaskResult<StatsOutput> {
  try {
    const { core } = setup(input);
    return ok({ ...core.cache.stats, maxBytes: core.cache.maxBytes, layers: core.layers });
  } catch (err) {
    return fail(err);
  }
}
