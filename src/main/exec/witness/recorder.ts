// Recording readers for debug_executionWitness: wrapped around the database while a block is re-executed on its
// parent's trie, they keep every trie node read (account and storage tries, and the nodes the post-state root
// computation loads: paths of updated keys and the siblings a deletion collapses), every contract code read, every
// account and slot key, and the lowest block number BLOCKHASH asked for.

import { toHexKey } from '../../primitives/bytes.js';
import type { AccountRecord, StateReader } from '../state/interface.js';
import type { CodeAndNodes } from '../state/trieReader.js';

/** Trie nodes and code, recorded by hash (insertion order kept, so a witness is deterministic). */
export class RecordingNodeReader implements CodeAndNodes {
  readonly nodes = new Map<string, Uint8Array>();
  readonly codes = new Map<string, Uint8Array>();

  constructor(private readonly inner: CodeAndNodes) {}

  get(hash: Uint8Array): Uint8Array | undefined {
    const node = this.inner.get(hash);
    // Copied: a database may hand out views of a reused buffer.
    if (node !== undefined) this.nodes.set(toHexKey(hash), node.slice());
    return node;
  }

  getCode(codeHash: Uint8Array): Uint8Array {
    const code = this.inner.getCode(codeHash);
    if (code.length > 0) this.codes.set(toHexKey(codeHash), code.slice());
    return code;
  }
}

/** The account addresses and storage slots execution read (geth's witness `keys`). */
export class RecordingStateReader implements StateReader {
  readonly keys = new Map<string, Uint8Array>();

  constructor(private readonly inner: StateReader) {}

  note(key: Uint8Array): void {
    const k = toHexKey(key);
    if (!this.keys.has(k)) this.keys.set(k, key.slice());
  }

  getAccount(address: Uint8Array): AccountRecord | undefined {
    this.note(address);
    return this.inner.getAccount(address);
  }

  getStorage(address: Uint8Array, slot: Uint8Array): bigint {
    this.note(address);
    this.note(slot);
    return this.inner.getStorage(address, slot);
  }

  getCode(codeHash: Uint8Array): Uint8Array {
    return this.inner.getCode(codeHash);
  }
}

/** BLOCKHASH through `inner`, remembering the lowest number asked for (the witness needs headers down to it). */
export class RecordingBlockHashes {
  lowest: bigint | undefined;

  constructor(private readonly inner: (n: bigint) => Uint8Array | undefined) {}

  readonly get = (n: bigint): Uint8Array | undefined => {
    const hash = this.inner(n);
    if (hash !== undefined && (this.lowest === undefined || n < this.lowest)) this.lowest = n;
    return hash;
  };
}
