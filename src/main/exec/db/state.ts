// Accessors of the state tables (see schema.ts): flat accounts by address, storage by (address, slot), code by code
// hash, and trie nodes by hash. Values are opaque bytes whose encoding the state module owns (a zero storage value
// is deleted, not stored). State is never moved to the ancient store, so these take a bare key-value view.

import type { KVReader, WriteBatch } from '../../common/db/interface.js';
import { trieNodeKey } from '../../protocol/db/sharedEnv.js';
import { ADDRESS_LENGTH, accountKey, codeKey, storageKey, storagePrefix } from './schema.js';

export function readAccount(r: KVReader, address: Uint8Array): Uint8Array | undefined {
  return r.get(accountKey(address));
}

export function writeAccount(b: WriteBatch, address: Uint8Array, data: Uint8Array): void {
  b.put(accountKey(address), data);
}

export function deleteAccount(b: WriteBatch, address: Uint8Array): void {
  b.delete(accountKey(address));
}

export function readStorage(r: KVReader, address: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
  return r.get(storageKey(address, slot));
}

export function writeStorage(b: WriteBatch, address: Uint8Array, slot: Uint8Array, value: Uint8Array): void {
  b.put(storageKey(address, slot), value);
}

export function deleteStorage(b: WriteBatch, address: Uint8Array, slot: Uint8Array): void {
  b.delete(storageKey(address, slot));
}

export interface StorageEntry {
  slot: Uint8Array;
  value: Uint8Array;
}

/** One account's storage in slot order. */
export function* iterateStorage(r: KVReader, address: Uint8Array): Generator<StorageEntry, void, undefined> {
  const prefix = storagePrefix(address);
  for (const { key, value } of r.iterate({ prefix })) yield { slot: key.subarray(1 + ADDRESS_LENGTH), value };
}

/** Queues the deletion of every storage slot of an account (self-destruct, re-creation); returns how many. */
export function deleteAllStorage(r: KVReader, b: WriteBatch, address: Uint8Array): number {
  let n = 0;
  for (const { key } of r.iterate({ prefix: storagePrefix(address) })) {
    b.delete(key);
    n++;
  }
  return n;
}

export function readCode(r: KVReader, codeHash: Uint8Array): Uint8Array | undefined {
  return r.get(codeKey(codeHash));
}

export function writeCode(b: WriteBatch, codeHash: Uint8Array, code: Uint8Array): void {
  b.put(codeKey(codeHash), code);
}

/** A trie node by its hash (hash scheme). */
export function readTrieNode(r: KVReader, hash: Uint8Array): Uint8Array | undefined {
  return r.get(trieNodeKey(hash));
}

export function writeTrieNode(b: WriteBatch, hash: Uint8Array, rlp: Uint8Array): void {
  b.put(trieNodeKey(hash), rlp);
}
