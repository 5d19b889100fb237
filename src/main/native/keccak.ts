// keccak-256, through the native module when it loaded and @noble/hashes otherwise. The JS twins are exported
// too, so tests and benchmarks can run both paths in one process.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { nativeFunction } from './index.js';

const MAX_OFFSET = 0xffff_ffff;

function offsetsError(message: string): TypeError {
  return Object.assign(new TypeError(`keccak256Packed: ${message}`), { code: 'ERR_INVALID_ARG_VALUE' });
}

// Same checks and messages as native/src/keccak.rs, so both paths reject the same calls the same way.
function checkOffsets(offsets: Uint32Array, dataLength: number): number {
  let prev = 0;
  for (let i = 0; i < offsets.length; i++) {
    const offset = offsets[i] as number;
    if (offset > dataLength) {
      throw offsetsError(`offsets[${i}] = ${offset} is past the end of data (length ${dataLength})`);
    }
    if (i > 0 && offset < prev) throw offsetsError(`offsets must not decrease (offsets[${i}] < offsets[${i - 1}])`);
    prev = offset;
  }
  return Math.max(offsets.length - 1, 0);
}

/** keccak-256 of one input, in JS (@noble/hashes). */
export function keccak256Js(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/** {@link keccak256Packed} in JS. */
export function keccak256PackedJs(data: Uint8Array, offsets: Uint32Array): Uint8Array {
  const n = checkOffsets(offsets, data.length);
  const out = new Uint8Array(32 * n);
  for (let i = 0; i < n; i++)
    out.set(keccak_256(data.subarray(offsets[i] as number, offsets[i + 1] as number)), 32 * i);
  return out;
}

/** {@link keccak256Batch} in JS; hashes each input where it lies instead of packing first. */
export function keccak256BatchJs(inputs: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(32 * inputs.length);
  for (let i = 0; i < inputs.length; i++) out.set(keccak_256(inputs[i] as Uint8Array), 32 * i);
  return out;
}

// Chosen once at load; each function falls back on its own if a stale build lacks it.
const nativeKeccak256 = nativeFunction('keccak256');
const nativeScratch = nativeFunction('keccak256Scratch');
const nativePacked = nativeFunction('keccak256Packed');
const packedImpl = nativePacked ?? keccak256PackedJs;

// Inputs up to this size are copied into one long-lived scratch array and hashed there: the copy is far cheaper
// than the N-API Buffer the plain native call allocates, and than moving a small on-heap input off-heap.
const SCRATCH_INPUT_MAX = 4096;

function scratchHasher(hashInScratch: (scratch: Uint8Array, len: number) => void): (data: Uint8Array) => Uint8Array {
  // Longer than 64 bytes, so V8 gives it an off-heap backing store at once and N-API reads it in place.
  const scratch = new Uint8Array(SCRATCH_INPUT_MAX + 32);
  const other = nativeKeccak256 ?? keccak256Js;
  return (data) => {
    // Long inputs, and anything not a Uint8Array (which the other path rejects with a TypeError).
    if (!(data instanceof Uint8Array) || data.length > SCRATCH_INPUT_MAX) return other(data);
    const n = data.length;
    scratch.set(data);
    hashInScratch(scratch, n);
    return scratch.slice(n, n + 32);
  };
}

const keccak256Impl = nativeScratch !== undefined ? scratchHasher(nativeScratch) : (nativeKeccak256 ?? keccak256Js);

/** keccak-256 of one input. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak256Impl(data);
}

/**
 * keccak-256 of many inputs packed into one buffer: input i is data[offsets[i], offsets[i+1]).
 * Returns the digests concatenated, 32 bytes each (offsets.length - 1 of them). Throws a TypeError (code
 * ERR_INVALID_ARG_VALUE) if an offset decreases or points past the end of data.
 */
export function keccak256Packed(data: Uint8Array, offsets: Uint32Array): Uint8Array {
  return packedImpl(data, offsets);
}

/** keccak-256 of each input; digests concatenated, 32 bytes each. */
export function keccak256Batch(inputs: readonly Uint8Array[]): Uint8Array {
  if (nativePacked === undefined) return keccak256BatchJs(inputs);
  const { data, offsets } = packInputs(inputs);
  return nativePacked(data, offsets);
}

/** Packs inputs into one buffer with offsets, the form batches cross threads and the native boundary in. */
export function packInputs(inputs: readonly Uint8Array[]): { data: Uint8Array; offsets: Uint32Array } {
  const offsets = new Uint32Array(inputs.length + 1);
  let total = 0;
  for (let i = 0; i < inputs.length; i++) {
    offsets[i] = total;
    total += (inputs[i] as Uint8Array).length;
    if (total > MAX_OFFSET) throw new RangeError('packInputs: inputs exceed 4 GiB, the reach of Uint32 offsets');
  }
  offsets[inputs.length] = total;
  const data = new Uint8Array(total);
  for (let i = 0; i < inputs.length; i++) data.set(inputs[i] as Uint8Array, offsets[i] as number);
  return { data, offsets };
}
