// The era1 accumulator: the SSZ hash_tree_root of List[HeaderRecord, 8192], HeaderRecord = {block_hash: Bytes32,
// total_difficulty: uint256} (the portal network's epoch accumulator). Each record's root is sha256(hash ‖ td as
// 32 bytes little-endian); the records are merkleized as a tree of depth 13 padded with zero subtrees, and the
// list length is mixed in (sha256(root ‖ length as uint256 LE)).
import { sha256 } from '@noble/hashes/sha2.js';
import { TernError } from '../../common/errors.js';

/** Blocks per era1 file, the accumulator's list limit. */
export const ERA1_MAX_BLOCKS = 8192;
const DEPTH = 13; // log2(ERA1_MAX_BLOCKS)

/** A uint256 as SSZ writes it: 32 bytes little-endian. */
export function uint256LE(n: bigint): Uint8Array {
  if (n < 0n || n >= 1n << 256n) throw new TernError('ERA_INVALID', `total difficulty ${n} is not a uint256`);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32 && n > 0n; i++, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
}

export function uint256FromLE(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i] as number);
  return n;
}

function hashPair(a: Uint8Array, b: Uint8Array): Uint8Array {
  const buf = new Uint8Array(64);
  buf.set(a);
  buf.set(b, 32);
  return sha256(buf);
}

const ZERO_HASHES: Uint8Array[] = [new Uint8Array(32)];
for (let i = 1; i <= DEPTH; i++) {
  const z = ZERO_HASHES[i - 1] as Uint8Array;
  ZERO_HASHES.push(hashPair(z, z));
}

export interface HeaderRecord {
  hash: Uint8Array;
  totalDifficulty: bigint;
}

export function computeAccumulator(records: readonly HeaderRecord[]): Uint8Array {
  if (records.length > ERA1_MAX_BLOCKS)
    throw new TernError('ERA_INVALID', `too many records: have ${records.length}, max ${ERA1_MAX_BLOCKS}`);
  let layer = records.map((r) => {
    if (r.hash.length !== 32) throw new TernError('ERA_INVALID', 'block hash must be 32 bytes');
    return hashPair(r.hash, uint256LE(r.totalDifficulty));
  });
  for (let depth = 0; depth < DEPTH; depth++) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < layer.length; i += 2) {
      next.push(hashPair(layer[i] as Uint8Array, layer[i + 1] ?? (ZERO_HASHES[depth] as Uint8Array)));
    }
    layer = next;
  }
  const root = layer[0] ?? (ZERO_HASHES[DEPTH] as Uint8Array);
  return hashPair(root, uint256LE(BigInt(records.length)));
}
