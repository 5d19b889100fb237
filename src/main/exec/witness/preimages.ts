// The witness as stateless execution sees it: keccak-256 preimages by hash. Trie nodes, contract code and
// ancestor headers all live in one map, as in op-program's preimage oracle: whatever execution asks for by hash
// is either here or the witness is incomplete, and the error names the hash and what it was for.
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { toHexKey } from '../../primitives/bytes.js';
import { EMPTY_CODE_HASH } from '../state/stateStore.js';
import type { CodeAndNodes } from '../state/trieReader.js';

/** What a preimage was needed for, for the error message of a missing one. */
export type PreimageKind = 'trie node' | 'contract code' | 'ancestor header';

export function missingPreimage(hash: Uint8Array, kind: PreimageKind, context?: string): TernError {
  const why = context === undefined ? '' : ` while ${context}`;
  return new TernError('WITNESS_MISSING_PREIMAGE', `witness lacks the preimage of ${toHexKey(hash)} (${kind})${why}`);
}

export class PreimageStore implements CodeAndNodes {
  readonly #byHash = new Map<string, Uint8Array>();

  /** Each entry is hashed here: a preimage is accepted for whatever hash it has, never for a claimed one. */
  constructor(preimages: Iterable<Uint8Array> = []) {
    for (const p of preimages) this.add(p);
  }

  add(preimage: Uint8Array): Uint8Array {
    const hash = keccak256(preimage);
    this.#byHash.set(toHexKey(hash), preimage);
    return hash;
  }

  get size(): number {
    return this.#byHash.size;
  }

  /** A preimage by hash, or undefined (NodeReader: the trie turns undefined into TRIE_MISSING_NODE). */
  get(hash: Uint8Array): Uint8Array | undefined {
    return this.#byHash.get(toHexKey(hash));
  }

  /** Code by hash; the empty code needs no preimage. */
  getCode(codeHash: Uint8Array): Uint8Array {
    if (Buffer.compare(codeHash, EMPTY_CODE_HASH) === 0) return new Uint8Array(0);
    const code = this.get(codeHash);
    if (code === undefined) throw missingPreimage(codeHash, 'contract code');
    return code;
  }

  /** A preimage that must be present. */
  require(hash: Uint8Array, kind: PreimageKind, context?: string): Uint8Array {
    const v = this.get(hash);
    if (v === undefined) throw missingPreimage(hash, kind, context);
    return v;
  }
}
