// The trie hasher's work, the same on whichever thread runs it (inline.ts on the caller's, the `trie` worker for
// pooled.ts): the state commitment of a block's diff over a node reader that looks in the clean-node cache, then in
// the layers of new nodes of blocks not yet written, then in the database; and the prefetch of account-trie paths.
import { keccak256Batch } from '../../native/keccak.js';
import { StateCommitment, type StateCommitmentResult, type StateDiff } from './commitment.js';
import type { NodeReader } from './interface.js';
import { MerkleTrie } from './merkleTrie.js';
import { NodeCache, nodeKey } from './nodeCache.js';
import { eachNode } from './packedNodes.js';

/** State roots whose warmed accounts are kept (a commit takes its root's; a block that fails leaves its own). */
const MAX_WARMED_ROOTS = 4;

export class HasherCore {
  readonly cache: NodeCache;
  /** New nodes of committed blocks whose write has not landed yet, oldest first, by layer id. */
  readonly #layers: Array<{ id: number; nodes: Map<string, Uint8Array> }> = [];
  /**
   * Accounts read ahead by warm(), per state root (nodeKey), for the commit on that root. A root's leaves never
   * change (the trie is content-addressed), so what is remembered stays true; only a few roots are kept.
   */
  readonly #warmed = new Map<string, Map<string, Uint8Array | null>>();

  constructor(cacheBytes: number) {
    this.cache = new NodeCache(cacheBytes);
  }

  /** Node reader: cache, then the pending layers (newest first), then `db` (whose nodes are cached on read). */
  reader(db: NodeReader): NodeReader {
    const cache = this.cache;
    const layers = this.#layers;
    return {
      get(hash: Uint8Array): Uint8Array | undefined {
        const key = nodeKey(hash);
        const hit = cache.get(key);
        if (hit !== undefined) return hit;
        for (let i = layers.length - 1; i >= 0; i--) {
          const rlp = (layers[i] as { nodes: Map<string, Uint8Array> }).nodes.get(key);
          if (rlp !== undefined) return rlp;
        }
        const rlp = db.get(hash);
        if (rlp !== undefined) cache.set(key, rlp);
        return rlp;
      },
    };
  }

  /**
   * The commitment of `diff` on the state at `stateRoot`. With `layer`, the new nodes stay readable to later commits
   * (which build on this root before the block is written) until release(layer); without, they go to the cache.
   */
  commit(db: NodeReader, stateRoot: Uint8Array, diff: StateDiff, layer?: number): StateCommitmentResult {
    const rootKey = nodeKey(stateRoot);
    const known = this.#warmed.get(rootKey);
    this.#warmed.delete(rootKey);
    const result = new StateCommitment(this.reader(db)).apply(stateRoot, diff, known);
    if (layer !== undefined) {
      const nodes = new Map<string, Uint8Array>();
      for (const [hash, rlp] of eachNode(result.newNodes)) nodes.set(nodeKey(hash), rlp);
      this.#layers.push({ id: layer, nodes });
    } else if (this.cache.maxBytes > 0) {
      // Copies: the result's nodes are views into a few large shared buffers.
      for (const [hash, rlp] of eachNode(result.newNodes)) this.cache.set(nodeKey(hash), rlp.slice());
    }
    return result;
  }

  /**
   * Drops the layers (their blocks are written, or discarded); their nodes go to the cache, where the next blocks'
   * commitments will look for them first.
   */
  release(ids: Iterable<number>): void {
    for (const id of ids) {
      const i = this.#layers.findIndex((l) => l.id === id);
      if (i < 0) continue;
      const [layer] = this.#layers.splice(i, 1);
      if (layer === undefined || this.cache.maxBytes === 0) continue;
      for (const [key, rlp] of layer.nodes) this.cache.set(key, rlp.slice());
    }
  }

  /**
   * Reads the accounts at `addresses` in the trie at `stateRoot` and remembers them for the next commit on that root,
   * which then skips their trie walks (the storage roots it needs): done while the block executes, the walks leave
   * the block's critical path. A missing node leaves that account to the commit (which reports it). Returns the
   * accounts read.
   */
  warm(db: NodeReader, stateRoot: Uint8Array, addresses: readonly Uint8Array[]): number {
    return this.#readAccounts(db, stateRoot, addresses, true);
  }

  /**
   * Walks the paths of `addresses` in the trie at `stateRoot` and remembers each account found for the commit on that
   * root; a missing node ends that path quietly (the commit walks it itself and says what is missing). With
   * `skipKnown`, accounts already remembered are not walked again. Returns the paths walked to the end.
   */
  #readAccounts(db: NodeReader, stateRoot: Uint8Array, addresses: readonly Uint8Array[], skipKnown: boolean): number {
    if (addresses.length === 0) return 0;
    const known = this.#knownAt(stateRoot);
    const keys = keccak256Batch(addresses);
    const trie = new MerkleTrie(this.reader(db));
    let walked = 0;
    for (let i = 0; i < addresses.length; i++) {
      const key = keys.subarray(32 * i, 32 * i + 32);
      const k = nodeKey(key);
      if (skipKnown && known.has(k)) continue;
      try {
        known.set(k, trie.get(stateRoot, key)?.slice() ?? null);
        walked++;
      } catch {
        // TRIE_MISSING_NODE: nothing read on this path.
      }
    }
    return walked;
  }

  /** The accounts remembered for the commit on `stateRoot` (a new, empty set for a new root; old roots go). */
  #knownAt(stateRoot: Uint8Array): Map<string, Uint8Array | null> {
    const rootKey = nodeKey(stateRoot);
    let known = this.#warmed.get(rootKey);
    if (known === undefined) {
      known = new Map();
      this.#warmed.set(rootKey, known);
      for (const old of this.#warmed.keys()) {
        if (this.#warmed.size <= MAX_WARMED_ROOTS) break;
        this.#warmed.delete(old);
      }
    }
    return known;
  }

  /** Layers kept (tests, metrics). */
  get layers(): number {
    return this.#layers.length;
  }

  /**
   * Walks the account-trie paths of `addresses` in the trie at `stateRoot`, so their nodes are in the cache when the
   * block's commitment reads them (geth's trie prefetcher). A missing node ends that path quietly: prefetching is a
   * hint (the root may be one whose block is still being hashed, or invalid). The accounts found are remembered for
   * the commit on that root, as warm() does. Returns the paths walked to the end.
   */
  prefetch(db: NodeReader, stateRoot: Uint8Array, addresses: readonly Uint8Array[]): number {
    return this.#readAccounts(db, stateRoot, addresses, false);
  }
}
