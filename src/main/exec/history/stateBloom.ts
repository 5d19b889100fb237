// The bloom filter of offline state pruning (geth's core/state/pruner stateBloom): every trie node and contract
// code hash of the state that is kept goes in; afterwards whatever is NOT in it may be deleted. False positives only
// keep some garbage, never lose live data. The keys are keccak hashes, already uniformly random, so the four probe
// positions are read straight from four 64-bit words of the hash (geth's stateBloomHasher does the same).
import { TernError } from '../../common/errors.js';

/** geth's floor for --bloomfilter.size (MB): smaller values are raised to it with a warning. */
export const MIN_BLOOM_MB = 256;

export class StateBloom {
  readonly #bits: Uint8Array;
  readonly #size: bigint;

  /** A filter of `megabytes` MB (8 Mi bits per MB). */
  constructor(megabytes: number) {
    if (!Number.isInteger(megabytes) || megabytes <= 0)
      throw new TernError('BLOOM_SIZE', `bloom filter size must be a positive number of MB, not ${megabytes}`);
    this.#bits = new Uint8Array(megabytes * 1024 * 1024);
    this.#size = BigInt(this.#bits.length) * 8n;
  }

  #positions(hash: Uint8Array): number[] {
    if (hash.length !== 32) throw new TernError('BLOOM_KEY', `state bloom keys are 32-byte hashes, not ${hash.length}`);
    const view = new DataView(hash.buffer, hash.byteOffset, 32);
    const out: number[] = [];
    for (let i = 0; i < 4; i++) out.push(Number(view.getBigUint64(i * 8) % this.#size));
    return out;
  }

  add(hash: Uint8Array): void {
    for (const p of this.#positions(hash)) this.#bits[p >>> 3] = (this.#bits[p >>> 3] as number) | (1 << (p & 7));
  }

  contains(hash: Uint8Array): boolean {
    return this.#positions(hash).every((p) => ((this.#bits[p >>> 3] as number) & (1 << (p & 7))) !== 0);
  }
}
