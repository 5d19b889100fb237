// The state root of a block from its state diff: every touched storage trie first (hashed together), then the
// account trie with the new storage roots. Keys are hashed in one batch per kind.

import { keccak256Batch } from '../../native/keccak.js';
import { TernError } from '../errors.js';
import type { NodeReader, PackedNodes, TrieUpdate } from './interface.js';
import { MerkleTrie, type TrieJob } from './merkleTrie.js';
import { decodeStringList, encodeStringList } from './node.js';
import { nodeKey } from './nodeCache.js';
import { concatNodes } from './packedNodes.js';
import { EMPTY_TRIE_ROOT } from './root.js';

/** The new state of one account after a block. */
export interface AccountChange {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  /** Changed slots: 32-byte slot as 0x-hex → new value; 0n deletes the slot. */
  storage: Map<string, bigint>;
  /** The account was created or re-created in this block: its old storage is gone before `storage` applies. */
  storageCleared?: boolean;
}

/** A block's effect on the state: address as 0x-hex → new account, or null if the account was deleted. */
export interface StateDiff {
  accounts: Map<string, AccountChange | null>;
}

export interface StateCommitmentResult {
  root: Uint8Array;
  /** Nodes to persist, storage tries' and account trie's; old nodes are kept (hash scheme, see TrieUpdateResult). */
  newNodes: PackedNodes;
  /** The storage root of every account in the diff that still exists. */
  storageRoots: Map<string, Uint8Array>;
}

/** Account leaves of one state root read ahead (HasherCore.warm): leaf RLP, or null for no account. */
export type KnownAccounts = ReadonlyMap<string, Uint8Array | null>;

const UINT256_MAX = (1n << 256n) - 1n;

function keyBytes(hex: string, length: number, what: string): Uint8Array {
  const digits = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (digits.length !== 2 * length || !/^[0-9a-fA-F]*$/.test(digits)) {
    throw new TernError('STATE_BAD_KEY', `state diff: ${what} ${JSON.stringify(hex)} is not ${length} bytes of hex`);
  }
  return Uint8Array.from(Buffer.from(digits, 'hex'));
}

/** Minimal big-endian bytes of an unsigned 256-bit integer (0 is empty). */
function uintBytes(v: bigint, what: string): Uint8Array {
  if (v < 0n || v > UINT256_MAX) throw new TernError('STATE_BAD_VALUE', `state diff: ${what} ${v} is not a uint256`);
  if (v === 0n) return new Uint8Array(0);
  const hex = v.toString(16);
  return Uint8Array.from(Buffer.from(hex.length & 1 ? `0${hex}` : hex, 'hex'));
}

/** RLP of an account: [nonce, balance, storageRoot, codeHash]. */
export function encodeAccount(
  nonce: bigint,
  balance: bigint,
  storageRoot: Uint8Array,
  codeHash: Uint8Array,
): Uint8Array {
  return encodeStringList([uintBytes(nonce, 'nonce'), uintBytes(balance, 'balance'), storageRoot, codeHash]);
}

/** RLP of a storage value as the storage trie holds it (the minimal big-endian bytes as an RLP string). */
export function encodeStorageValue(v: bigint): Uint8Array {
  return encodeStringList([uintBytes(v, 'storage value')]).subarray(1);
}

export class StateCommitment {
  private readonly trie: MerkleTrie;

  /** `reader` must also hold the nodes of earlier results before the next `apply` builds on their root. */
  constructor(reader: NodeReader) {
    this.trie = new MerkleTrie(reader);
  }

  /**
   * The state root after applying `diff` to the state at `stateRoot`, and the nodes to persist. `known` holds
   * accounts already read from the trie at `stateRoot` (their leaf RLP, or null where there is none) by keccak of
   * the address (nodeCache.ts nodeKey); the others are read here.
   */
  apply(stateRoot: Uint8Array, diff: StateDiff, known?: KnownAccounts): StateCommitmentResult {
    const addresses = [...diff.accounts.keys()];
    const addressHashes = keccak256Batch(addresses.map((a) => keyBytes(a, 20, 'address')));
    const accountKey = (i: number): Uint8Array => addressHashes.subarray(32 * i, 32 * i + 32);

    // Every changed slot of every account, hashed in one batch.
    const slots: Uint8Array[] = [];
    for (const change of diff.accounts.values()) {
      if (change === null) continue;
      for (const slot of change.storage.keys()) slots.push(keyBytes(slot, 32, 'storage slot'));
    }
    const slotHashes = keccak256Batch(slots);

    const jobs: TrieJob[] = [];
    const jobOwner: number[] = [];
    const storageRoots: (Uint8Array | undefined)[] = new Array(addresses.length);
    let s = 0;
    addresses.forEach((address, i) => {
      const change = diff.accounts.get(address);
      if (change === undefined || change === null) return;
      const oldRoot = change.storageCleared ? EMPTY_TRIE_ROOT : this.storageRoot(stateRoot, accountKey(i), known);
      const updates: TrieUpdate[] = [];
      for (const value of change.storage.values()) {
        const key = slotHashes.subarray(32 * s, 32 * s + 32);
        s++;
        updates.push([key, value === 0n ? null : encodeStorageValue(value)]);
      }
      if (updates.length === 0) storageRoots[i] = oldRoot;
      else {
        jobs.push({ root: oldRoot, updates });
        jobOwner.push(i);
      }
    });
    const storage = this.trie.applyUpdatesMany(jobs);
    storage.roots.forEach((root, j) => {
      storageRoots[jobOwner[j] as number] = root;
    });

    const accountUpdates: TrieUpdate[] = [];
    const rootsByAddress = new Map<string, Uint8Array>();
    addresses.forEach((address, i) => {
      const change = diff.accounts.get(address);
      if (change === undefined || change === null) {
        accountUpdates.push([accountKey(i), null]);
        return;
      }
      const root = storageRoots[i] as Uint8Array;
      rootsByAddress.set(address, root);
      accountUpdates.push([accountKey(i), encodeAccount(change.nonce, change.balance, root, change.codeHash)]);
    });
    const accounts = this.trie.applyUpdates(stateRoot, accountUpdates);
    return {
      root: accounts.root,
      newNodes: concatNodes([storage.newNodes, accounts.newNodes]),
      storageRoots: rootsByAddress,
    };
  }

  /** The storage root recorded for the account under `addressHash`, or the empty root for a new account. */
  private storageRoot(stateRoot: Uint8Array, addressHash: Uint8Array, known?: KnownAccounts): Uint8Array {
    const seen = known?.get(nodeKey(addressHash));
    const rlp = seen === undefined ? this.trie.get(stateRoot, addressHash) : (seen ?? undefined);
    if (rlp === undefined) return EMPTY_TRIE_ROOT;
    const fields = decodeStringList(rlp);
    const root = fields[2];
    if (fields.length !== 4 || root === undefined || root.length !== 32) {
      throw new TernError(
        'TRIE_BAD_NODE',
        'malformed account in the state trie: expected [nonce, balance, root, code]',
      );
    }
    return root;
  }
}
