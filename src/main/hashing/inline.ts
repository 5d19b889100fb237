// The inline KeccakHasher: keccak256Packed on the calling thread. For tests, tools and single-threaded setups; it
// blocks the thread for the whole batch.

import { checkPacked } from '../../workers/keccak.js';
import { TernError } from '../common/errors.js';
import { keccak256Packed, packInputs } from '../native/keccak.js';
import { PoolErrorCode } from '../pool/interface.js';
import type { HashOptions, HashPackedOptions, KeccakHasher } from './interface.js';

export class InlineKeccakHasher implements KeccakHasher {
  readonly threads = 1;

  async hashBatch(inputs: readonly Uint8Array[], opts: HashOptions = {}): Promise<Uint8Array[]> {
    throwIfAborted(opts.signal);
    const { data, offsets } = packInputs(inputs);
    return splitDigests(keccak256Packed(data, offsets));
  }

  async hashPacked(data: Uint8Array, offsets: Uint32Array, opts: HashPackedOptions = {}): Promise<Uint8Array> {
    throwIfAborted(opts.signal);
    checkPacked(data, offsets);
    return keccak256Packed(data, offsets);
  }
}

/** 32-byte views of concatenated digests (no copy). The constructor is ~1.5× faster than subarray here. */
export function splitDigests(digests: Uint8Array): Uint8Array[] {
  const n = digests.length >>> 5;
  const { buffer, byteOffset } = digests;
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) out.push(new Uint8Array(buffer, byteOffset + 32 * i, 32));
  return out;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new TernError(PoolErrorCode.aborted, 'hashing aborted');
}
