// `tern-exec snapshot prune-state`: offline state pruning (geth's core/state/pruner). Every trie node of the kept
// state (the account trie and each storage trie under it) and every code hash its accounts name goes into a bloom
// filter of --bloomfilter.size MB; then the trie-node ('t') and code ('c') tables are swept and every entry the
// filter does not contain is deleted in batches. Unlike the mark of the online pruner (history/statePruner.ts) the
// walk never skips a node because the filter claims it: a false positive would otherwise hide a live subtree.
// Afterwards only the kept state answers; older roots answer "missing trie node" as after geth's prune.

import type { KVStore } from '../../common/db/interface.js';
import type { Logger } from '../../common/logger/index.js';
import { BRANCH, decodeNode, EMBEDDED, EXTENSION, HASH, hashOf, LEAF, type Ref } from '../../primitives/trie/node.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import { encodeNumber, MetaKey, metaKey, TablePrefix, tablePrefix } from '../db/schema.js';
import { readTrieNode } from '../db/state.js';
import { decodeAccountRecord } from '../state/stateStore.js';
import { StateBloom } from './stateBloom.js';

/** keccak256 of empty code: accounts without code name it, and nothing is stored under it. */
const EMPTY_CODE_HASH = Buffer.from('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', 'hex');
const DELETE_BATCH = 10_000;

export interface PruneStateResult {
  /** Trie nodes of the kept state (walked). */
  keptNodes: number;
  deletedNodes: number;
  deletedCodes: number;
}

export class MissingStateError extends Error {}

/** Adds the kept state's nodes and code hashes to `bloom`; returns how many trie nodes it walked. */
export function bloomState(kv: KVStore, root: Uint8Array, bloom: StateBloom): number {
  if (Buffer.compare(root, EMPTY_TRIE_ROOT) === 0) return 0;
  if (readTrieNode(kv, root) === undefined)
    throw new MissingStateError(`missing trie node ${Buffer.from(root).toString('hex')} (the state to keep)`);
  const storageRoots = new Set<string>();
  const stack: Array<[Uint8Array, boolean]> = [[root, true]];
  let walked = 0;
  while (stack.length > 0) {
    const [hash, isAccount] = stack.pop()!;
    const rlp = readTrieNode(kv, hash);
    if (rlp === undefined)
      throw new MissingStateError(
        `missing trie node ${Buffer.from(hash).toString('hex')}: the state to keep is incomplete`,
      );
    bloom.add(hash);
    walked++;
    const refs: Ref[] = [decodeNode(rlp)];
    while (refs.length > 0) {
      const ref = refs.pop()!;
      if (ref.t === HASH) stack.push([hashOf(ref).slice(), isAccount]);
      else if (ref.t === EMBEDDED) refs.push(decodeNode(ref.rlp));
      else if (ref.t === EXTENSION) refs.push(ref.child);
      else if (ref.t === BRANCH) {
        for (const c of ref.children) if (c !== null) refs.push(c);
      } else if (ref.t === LEAF && isAccount) {
        const account = decodeAccountRecord(ref.value);
        if (Buffer.compare(account.codeHash, EMPTY_CODE_HASH) !== 0) bloom.add(account.codeHash);
        const s = account.storageRoot;
        if (s === undefined || Buffer.compare(s, EMPTY_TRIE_ROOT) === 0) continue;
        const k = Buffer.from(s).toString('latin1');
        if (!storageRoots.has(k)) {
          storageRoots.add(k);
          stack.push([s.slice(), false]);
        }
      }
    }
  }
  return walked;
}

/** Deletes the entries of table `prefix` (32-byte hash keys) that `bloom` does not contain; returns how many. */
async function sweep(kv: KVStore, prefix: number, bloom: StateBloom): Promise<number> {
  let deleted = 0;
  let batch = kv.batch();
  let inBatch = 0;
  const snap = kv.snapshot();
  try {
    for (const { key } of snap.iterate({ prefix: tablePrefix(prefix) })) {
      const hash = key.subarray(1);
      if (hash.length !== 32 || bloom.contains(hash)) continue;
      batch.delete(key);
      deleted++;
      if (++inBatch >= DELETE_BATCH) {
        await batch.commit();
        batch = kv.batch();
        inBatch = 0;
      }
    }
  } finally {
    snap.release();
  }
  if (inBatch > 0) await batch.commit();
  return deleted;
}

/**
 * Keeps the state at `root` (the head block `headNumber`'s) and deletes every other trie node and unused code.
 * Records that canonical states below the head are gone (the online pruner's marker, used in error messages).
 */
export async function pruneState(
  kv: KVStore,
  opts: { root: Uint8Array; headNumber: number; bloomMB: number },
  deps: { logger: Logger },
): Promise<PruneStateResult> {
  const bloom = new StateBloom(opts.bloomMB);
  deps.logger.info('Building the state bloom filter', {
    root: Buffer.from(opts.root).toString('hex'),
    sizeMB: opts.bloomMB,
  });
  const keptNodes = bloomState(kv, opts.root, bloom);
  deps.logger.info('State bloom filter built', { nodes: keptNodes });
  const deletedNodes = await sweep(kv, TablePrefix.trieNode, bloom);
  const deletedCodes = await sweep(kv, TablePrefix.code, bloom);
  const b = kv.batch();
  b.put(metaKey(MetaKey.statePrunedBelow), encodeNumber(opts.headNumber));
  await b.commit();
  deps.logger.info('Pruned state data', { kept: keptNodes, deletedNodes, deletedCodes });
  return { keptNodes, deletedNodes, deletedCodes };
}
