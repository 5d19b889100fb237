// Keccak256 preimage recording (geth's preimage store, served by debug_preimage):
//   --vmdebug          (geth's vm.Config.EnablePreimageRecording) the input of every KECCAK256 opcode run while
//                      importing or building blocks. The recorder's hasher becomes the customCrypto.keccak256 of the
//                      importer's and builder's own Common, which in @ethereumjs/evm only the KECCAK256 opcode (and
//                      an error-message helper) calls; nothing else in tern hashes through those Commons.
//   --cache.preimages  (geth's triedb Preimages) the keys of the state trie: address for keccak(address) of every
//                      account a block writes, slot for keccak(slot) of every non-zero slot it writes (geth's secure
//                      trie caches the key on update, not on delete).
// Both are written in the batch of the next block committed (ChainStore.writeCodeAndNodes), table 'p'
// (../db/schema.ts). A preimage is a fact about keccak256, not about a block: when a block's execution fails, or
// a built payload is never imported, what it hashed is still written with the next block, which is harmless. With
// both flags off no recorder exists and nothing is hashed or stored: zero cost.

import type { KVReader, WriteBatch } from '../../common/db/interface.js';
import { keccak256 } from '../../native/keccak.js';
import { preimageKey } from '../db/schema.js';
import type { StateDiff } from '../state/interface.js';

export interface PreimageOptions {
  /** --vmdebug: record the inputs of the KECCAK256 opcode. */
  sha3: boolean;
  /** --cache.preimages: record the state trie's keys (addresses and storage slots). */
  trieKeys: boolean;
}

/** The recorder when either flag is on, else undefined (nothing to do at all). */
export function createPreimageRecorder(opts: PreimageOptions): PreimageRecorder | undefined {
  return opts.sha3 || opts.trieKeys ? new PreimageRecorder(opts) : undefined;
}

const fromHexKey = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

export class PreimageRecorder {
  /** Preimages recorded since the last commit, by hash (hex). */
  readonly #pending = new Map<string, { hash: Uint8Array; preimage: Uint8Array }>();
  /**
   * The KECCAK256 opcode's hasher when --vmdebug is set (give it as customCrypto.keccak256 of an executor's own
   * Common); undefined otherwise.
   */
  readonly keccak256: ((data: Uint8Array) => Uint8Array) | undefined;

  constructor(readonly opts: PreimageOptions) {
    this.keccak256 = opts.sha3
      ? (data) => {
          const hash = keccak256(data);
          this.record(hash, data);
          return hash;
        }
      : undefined;
  }

  /** Preimages waiting for the next commit. */
  get pending(): number {
    return this.#pending.size;
  }

  record(hash: Uint8Array, preimage: Uint8Array): void {
    const key = Buffer.from(hash.buffer, hash.byteOffset, hash.length).toString('hex');
    if (!this.#pending.has(key)) this.#pending.set(key, { hash: hash.slice(), preimage: preimage.slice() });
  }

  /** Puts the recorded preimages, and the trie keys of `diff` when recording those, into a block's batch. */
  write(b: WriteBatch, diff: StateDiff): void {
    if (this.opts.trieKeys) {
      for (const [addrHex, acct] of diff.accounts) {
        if (acct === null) continue;
        const address = fromHexKey(addrHex);
        this.record(keccak256(address), address);
        for (const [slotHex, value] of acct.storage) {
          if (value === 0n) continue;
          const slot = fromHexKey(slotHex);
          this.record(keccak256(slot), slot);
        }
      }
    }
    for (const { hash, preimage } of this.#pending.values()) b.put(preimageKey(hash), preimage);
    this.#pending.clear();
  }
}

/** debug_preimage: the stored preimage of `hash`, or undefined. */
export function readPreimage(kv: KVReader, hash: Uint8Array): Uint8Array | undefined {
  return kv.get(preimageKey(hash));
}
