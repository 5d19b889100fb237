// The incremental trie update in native code (native/src/trie_update.rs): packs the jobs of
// MerkleTrie.applyUpdatesMany into a few buffers, lets Rust read the nodes it needs through a callback, and unpacks
// the new roots and nodes. The JS implementation in src/main/primitives/trie/merkleTrie.ts is the fallback and the
// reference: both give the same roots and the same new nodes, in the same order, byte for byte.
import { nativeFunction } from './index.js';

/** Longest key the native update takes (native/src/trie_update.rs MAX_KEY_LEN); longer ones need the JS path. */
export const NATIVE_TRIE_MAX_KEY = 128;

export interface NativeTrieJob {
  readonly root: Uint8Array;
  readonly updates: ReadonlyArray<readonly [key: Uint8Array, value: Uint8Array | null]>;
}

export interface NativeTrieResult {
  roots: Uint8Array[];
  /** Views into the one result buffer (primitives/trie/interface.ts PackedNodes; native sits below primitives). */
  newNodes: { hashes: Uint8Array; rlps: Uint8Array; offsets: Uint32Array };
}

const nativeApply = nativeFunction('trieApplyUpdates');

/** Whether the native update is available (the module loaded and has the function). */
export const hasNativeTrieUpdate = nativeApply !== undefined;

/**
 * Applies each job's updates (any order; of equal keys the later wins; null or empty values delete) to the trie at
 * its root, reading nodes through `getNode` (its argument is one array reused for every call: read it, do not keep
 * it), and hashes all the new nodes together. Returns undefined when the
 * native module is unavailable or a key is longer than {@link NATIVE_TRIE_MAX_KEY} (use the JS path then). Throws
 * the native Error (code TRIE_MISSING_NODE or TRIE_BAD_NODE) for a missing or malformed node.
 */
export function applyUpdatesNative(
  jobs: readonly NativeTrieJob[],
  getNode: (hash: Uint8Array) => Uint8Array | undefined,
): NativeTrieResult | undefined {
  if (nativeApply === undefined) return undefined;
  let count = 0;
  let keyBytes = 0;
  let valueBytes = 0;
  // Keys hashed in one batch (as the commitment and the state trie pass them) lie back to back in one buffer:
  // then that buffer is passed as it is, with no copy per key. Tracked as the buffer and the end of the last key.
  let keyBuffer: ArrayBufferLike | undefined = jobs[0]?.updates[0]?.[0].buffer;
  const keyStart = jobs[0]?.updates[0]?.[0].byteOffset ?? 0;
  let keyEnd = keyStart;
  for (let j = 0; j < jobs.length; j++) {
    const job = jobs[j] as NativeTrieJob;
    if (job.root.length !== 32) return undefined;
    const updates = job.updates;
    count += updates.length;
    for (let i = 0; i < updates.length; i++) {
      const u = updates[i] as NativeTrieJob['updates'][number];
      const key = u[0];
      const value = u[1];
      if (key.length > NATIVE_TRIE_MAX_KEY) return undefined;
      keyBytes += key.length;
      if (value !== null) valueBytes += value.length;
      // Checked only while the run lasts: reading .buffer of a small array moves it off the V8 heap.
      if (keyBuffer !== undefined) {
        if (key.byteOffset === keyEnd && key.buffer === keyBuffer) keyEnd += key.length;
        else keyBuffer = undefined;
      }
    }
  }
  const roots = new Uint8Array(32 * jobs.length);
  const jobEnds = new Uint32Array(jobs.length);
  // Over 64 bytes, a typed array's memory is off the V8 heap, where no GC moves it while getNode runs JS.
  // Otherwise the inputs are packed: they are read during the call only, so one set of buffers serves every call.
  const inPlace = keyBuffer !== undefined && keyBytes > 64 ? new Uint8Array(keyBuffer, keyStart, keyBytes) : undefined;
  const keys = inPlace ?? packBuffer(0, keyBytes);
  const keyOffsets = new Uint32Array(count + 1);
  const values = packBuffer(1, valueBytes);
  const valueOffsets = new Uint32Array(count + 1);
  let n = 0;
  let kp = 0;
  let vp = 0;
  for (let j = 0; j < jobs.length; j++) {
    const job = jobs[j] as NativeTrieJob;
    roots.set(job.root, 32 * j);
    const updates = job.updates;
    for (let i = 0; i < updates.length; i++) {
      const u = updates[i] as NativeTrieJob['updates'][number];
      const key = u[0];
      const value = u[1];
      if (inPlace === undefined) keys.set(key, kp);
      kp += key.length;
      if (value !== null) {
        values.set(value, vp);
        vp += value.length;
      }
      n++;
      keyOffsets[n] = kp;
      valueOffsets[n] = vp;
    }
    jobEnds[j] = n;
  }
  // The hash of each node wanted is written here before each getNode call: a 32-byte view of a buffer long enough
  // to live off the V8 heap, so native code writes it in place.
  const scratch = new Uint8Array(128).subarray(0, 32);
  const out = nativeApply(roots, jobEnds, keys, keyOffsets, values, valueOffsets, getNode, scratch);
  return unpack(out, jobs.length);
}

/** Reused input buffers (keys, values), grown to the next power of two; a call sees a view of exactly its bytes. */
const packBuffers: Uint8Array[] = [new Uint8Array(0), new Uint8Array(0)];

function packBuffer(which: 0 | 1, length: number): Uint8Array {
  let buf = packBuffers[which] as Uint8Array;
  if (buf.length < length) {
    buf = new Uint8Array(2 ** Math.ceil(Math.log2(length)));
    packBuffers[which] = buf;
  }
  return buf.subarray(0, length);
}

/**
 * Layout: roots (32 × jobs) | N (u32) | RLP offsets ((N + 1) × u32, host byte order) | hashes (N × 32) | RLPs back to
 * back. The new nodes come back as views of that one buffer: no object per node.
 */
function unpack(result: Uint8Array, jobCount: number): NativeTrieResult {
  // A plain Uint8Array over the native Buffer: Buffer's slice() would share memory (roots must be copies, since a
  // caller may transfer a root's buffer to another thread), and callers compare results with Uint8Arrays.
  let out = new Uint8Array(result.buffer, result.byteOffset, result.byteLength);
  // The counts are read through a Uint32Array view, which needs a 4-aligned start (a fresh native Buffer is).
  if (out.byteOffset % 4 !== 0) out = out.slice();
  const roots: Uint8Array[] = [];
  for (let j = 0; j < jobCount; j++) roots.push(out.slice(32 * j, 32 * j + 32));
  const countAt = out.byteOffset + 32 * jobCount;
  const count = new Uint32Array(out.buffer, countAt, 1)[0] as number;
  const offsets = new Uint32Array(out.buffer, countAt + 4, count + 1);
  const hashAt = 32 * jobCount + 4 + 4 * (count + 1);
  const rlpAt = hashAt + 32 * count;
  const rlps = out.subarray(rlpAt);
  if (offsets[count] !== rlps.length) throw new Error('trieApplyUpdates: result layout does not add up');
  return { roots, newNodes: { hashes: out.subarray(hashAt, rlpAt), rlps, offsets } };
}
