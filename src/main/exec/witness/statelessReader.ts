// The parent's state read from a witness: the trie walked from the parent's state root over the preimages. A
// missing node or code becomes WITNESS_MISSING_PREIMAGE naming the hash and the account or slot being read, and
// is remembered, because the EVM may turn an error thrown into it into something else (an invalid transaction);
// the stateless executor reports the remembered fault instead.
import { TernError } from '../../common/errors.js';
import { fromHex, toHexKey } from '../../primitives/bytes.js';
import type { AccountRecord, StateReader } from '../state/interface.js';
import { TrieStateReader } from '../state/trieReader.js';
import { missingPreimage, type PreimageStore } from './preimages.js';

const MISSING_NODE = /(?:0x)?([0-9a-fA-F]{64})/;

/** Rewrites a trie's TRIE_MISSING_NODE as a missing preimage with context; other errors pass through. */
export function asMissingPreimage(err: unknown, context: string): unknown {
  if (!(err instanceof TernError) || err.code !== 'TRIE_MISSING_NODE') return err;
  const m = MISSING_NODE.exec(err.message);
  return m ? missingPreimage(fromHex(m[1] as string), 'trie node', context) : err;
}

/** Remembers the first missing-preimage fault of a run. */
export class FaultLog {
  first: TernError | undefined;

  note(err: unknown): unknown {
    if (this.first === undefined && err instanceof TernError && err.code === 'WITNESS_MISSING_PREIMAGE')
      this.first = err;
    return err;
  }
}

export class WitnessStateReader implements StateReader {
  readonly #trie: TrieStateReader;

  constructor(
    private readonly preimages: PreimageStore,
    stateRoot: Uint8Array,
    private readonly faults: FaultLog,
  ) {
    this.#trie = new TrieStateReader(preimages, stateRoot);
  }

  getAccount(address: Uint8Array): AccountRecord | undefined {
    try {
      return this.#trie.getAccount(address);
    } catch (err) {
      throw this.faults.note(asMissingPreimage(err, `reading account ${toHexKey(address)}`));
    }
  }

  getStorage(address: Uint8Array, slot: Uint8Array): bigint {
    try {
      return this.#trie.getStorage(address, slot);
    } catch (err) {
      throw this.faults.note(asMissingPreimage(err, `reading slot ${toHexKey(slot)} of ${toHexKey(address)}`));
    }
  }

  getCode(codeHash: Uint8Array): Uint8Array {
    try {
      return this.preimages.getCode(codeHash);
    } catch (err) {
      throw this.faults.note(err);
    }
  }
}
