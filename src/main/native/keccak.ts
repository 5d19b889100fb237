// keccak-256, through the native module when it loaded and @noble/hashes otherwise.
// TODO(native helper): wire the native implementation in; this file keeps its exported signatures.
import { keccak_256 } from '@noble/hashes/sha3.js';

/** keccak-256 of one input. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/**
 * keccak-256 of many inputs packed into one buffer: input i is data[offsets[i], offsets[i+1]).
 * Returns the digests concatenated, 32 bytes each (offsets.length - 1 of them).
 */
export function keccak256Packed(data: Uint8Array, offsets: Uint32Array): Uint8Array {
  const n = offsets.length - 1;
  const out = new Uint8Array(32 * Math.max(n, 0));
  for (let i = 0; i < n; i++) out.set(keccak_256(data.subarray(offsets[i] as number, offsets[i + 1] as number)), 32 * i);
  return out;
}

/** keccak-256 of each input; digests concatenated, 32 bytes each. */
export function keccak256Batch(inputs: readonly Uint8Array[]): Uint8Array {
  const { data, offsets } = packInputs(inputs);
  return keccak256Packed(data, offsets);
}

/** Packs inputs into one buffer with offsets, the form batches cross threads and the native boundary in. */
export function packInputs(inputs: readonly Uint8Array[]): { data: Uint8Array; offsets: Uint32Array } {
  const offsets = new Uint32Array(inputs.length + 1);
  let total = 0;
  for (let i = 0; i < inputs.length; i++) {
    offsets[i] = total;
    total += (inputs[i] as Uint8Array).length;
  }
  offsets[inputs.length] = total;
  const data = new Uint8Array(total);
  for (let i = 0; i < inputs.length; i++) data.set(inputs[i] as Uint8Array, offsets[i] as number);
  return { data, offsets };
}
