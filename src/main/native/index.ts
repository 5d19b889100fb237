// The one place the Rust N-API module (native/tern_native.node) is loaded. Everything else asks this file for a
// native function and falls back to JS when it gets undefined, so a missing or broken build only costs speed.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The functions tern_native exports (native/src/lib.rs). Digests come back as Buffers. */
export interface NativeBinding {
  /** keccak-256 of one input: a 32-byte Buffer. */
  keccak256(data: Uint8Array): Uint8Array;
  /**
   * Hashes scratch[0, len) and writes the digest to scratch[len, len + 32); allocates nothing. For short inputs
   * this halves the cost of {@link keccak256}, whose N-API Buffer allocation costs more than the hash.
   */
  keccak256Scratch(scratch: Uint8Array, len: number): void;
  /** keccak-256 of data[offsets[i], offsets[i+1]) for each i, 32 bytes each; TypeError on bad offsets. */
  keccak256Packed(data: Uint8Array, offsets: Uint32Array): Uint8Array;
  /**
   * keccak-256 of data[offset, offset + len) as a BigInt (the digest read big-endian): the KECCAK256 opcode hashing
   * the frame's memory in place. TypeError (ERR_INVALID_ARG_VALUE) for a range outside data.
   */
  keccak256Word(data: Uint8Array, offset: number, len: number): bigint;
  /**
   * Merkle-Patricia root (32 bytes) of key i = keys[keyOffsets[i], keyOffsets[i+1]) holding the value packed the
   * same way; any order, the later of equal keys wins, empty values are absent. TypeError on bad offsets,
   * RangeError (ERR_OUT_OF_RANGE) for a key over 256 bytes.
   */
  trieRoot(keys: Uint8Array, keyOffsets: Uint32Array, values: Uint8Array, valueOffsets: Uint32Array): Uint8Array;
  /** {@link trieRoot} with each key replaced by its keccak-256 first. */
  secureTrieRoot(keys: Uint8Array, keyOffsets: Uint32Array, values: Uint8Array, valueOffsets: Uint32Array): Uint8Array;
  /** Root of the trie holding value i under key RLP(i). */
  orderedTrieRoot(values: Uint8Array, valueOffsets: Uint32Array): Uint8Array;
  /**
   * Incremental update of several Merkle-Patricia tries over a node store read through `getNode` (see
   * src/main/native/trie.ts, which packs the arguments and unpacks the result). `getNode` is called with `scratch`
   * (32 bytes) holding the hash of the node wanted, rewritten before each call. Throws an Error coded
   * TRIE_MISSING_NODE or TRIE_BAD_NODE for a missing or malformed node; exceptions from getNode propagate.
   */
  trieApplyUpdates(
    roots: Uint8Array,
    jobEnds: Uint32Array,
    keys: Uint8Array,
    keyOffsets: Uint32Array,
    values: Uint8Array,
    valueOffsets: Uint32Array,
    getNode: (hash: Uint8Array) => Uint8Array | undefined,
    scratch: Uint8Array,
  ): Uint8Array;
  /** The process's open-file limit (RLIMIT_NOFILE), Infinity for unlimited; an Error coded ERR_FDLIMIT on failure. */
  getFdLimit(): { soft: number; hard: number };
  /**
   * Sets the soft open-file limit (Infinity: unlimited), keeping the hard one, and returns the limits read back. The
   * operating system refuses a soft limit above the hard one (an Error coded ERR_FDLIMIT); TypeError for a value that
   * is not a non-negative integer. Exported on Linux and macOS only.
   */
  setFdLimit(soft: number): { soft: number; hard: number };
}

export type NativeFunctionName = keyof NativeBinding;

/** Every function the binding should have; each one missing from a stale build falls back to JS on its own. */
export const NATIVE_FUNCTIONS: readonly NativeFunctionName[] = [
  'keccak256',
  'keccak256Scratch',
  'keccak256Packed',
  'keccak256Word',
  'trieRoot',
  'secureTrieRoot',
  'orderedTrieRoot',
  'trieApplyUpdates',
  'getFdLimit',
  'setFdLimit',
];

export interface NativeStatus {
  loaded: boolean;
  path: string;
  error?: string;
  functions: Record<string, 'native' | 'js'>;
}

// This file runs as src/main/native/index.ts (vitest) and as dist/src/main/native/index.js (tsc output): three
// levels up is the project root in the first case and dist/ in the second.
function projectRoot(): string {
  const up = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  return basename(up) === 'dist' ? dirname(up) : up;
}

const NATIVE_PATH = join(projectRoot(), 'native', 'tern_native.node');

interface LoadResult {
  binding: Partial<NativeBinding> | undefined;
  error?: string;
}

function load(): LoadResult {
  if (process.env.TERN_NATIVE === '0') return { binding: undefined, error: 'disabled by TERN_NATIVE=0' };
  if (!existsSync(NATIVE_PATH)) {
    return { binding: undefined, error: 'not built (npm run build:native needs cargo); using the JS fallback' };
  }
  try {
    const mod: unknown = createRequire(import.meta.url)(NATIVE_PATH);
    if (typeof mod !== 'object' || mod === null) return { binding: undefined, error: 'module exported no object' };
    const exported = mod as Record<string, unknown>;
    const binding: Partial<Record<NativeFunctionName, unknown>> = {};
    for (const name of NATIVE_FUNCTIONS) if (typeof exported[name] === 'function') binding[name] = exported[name];
    return { binding: binding as Partial<NativeBinding> };
  } catch (err) {
    return { binding: undefined, error: err instanceof Error ? err.message : String(err) };
  }
}

const result = load();

/** The loaded binding (only the functions it really has), or undefined when it did not load. */
export const native: Readonly<Partial<NativeBinding>> | undefined = result.binding;

/** A native function, or undefined when the module or that function is unavailable (use the JS twin then). */
export function nativeFunction<K extends NativeFunctionName>(name: K): NativeBinding[K] | undefined {
  return native?.[name];
}

/** What loaded and which implementation each function uses; the programs log this at startup (debug). */
export function nativeStatus(): NativeStatus {
  const functions: Record<string, 'native' | 'js'> = {};
  for (const name of NATIVE_FUNCTIONS) functions[name] = native?.[name] ? 'native' : 'js';
  const status: NativeStatus = { loaded: native !== undefined, path: NATIVE_PATH, functions };
  if (result.error !== undefined) status.error = result.error;
  return status;
}
