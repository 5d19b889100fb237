// The trie worker's commitment message: the packed new nodes cross as they are (or as copies when the sender keeps
// views into them), the storage roots pair up with their addresses, and malformed arrays are refused.
import { describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../bench/rng.js';
import { TernError } from '../../../../../src/main/common/errors.js';
import type { StateCommitmentResult } from '../../../../../src/main/primitives/trie/commitment.js';
import type { TrieNode } from '../../../../../src/main/primitives/trie/interface.js';
import { eachNode, packNodes } from '../../../../../src/main/primitives/trie/packedNodes.js';
import {
  commitmentBuffers,
  type PackedCommitment,
  packCommitment,
  unpackCommitment,
} from '../../../../../src/main/protocol/hasher/codec.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function commitment(seed: number): StateCommitmentResult {
  const r = xorshiftRng(seed);
  const nodes = Array.from({ length: 40 }, (): TrieNode => [r.bytes(32), r.bytes(1 + r.int(200))]);
  const storageRoots = new Map<string, Uint8Array>();
  for (let i = 0; i < 5; i++) storageRoots.set(`0x${hex(r.bytes(20))}`, r.bytes(32));
  return { root: r.bytes(32), newNodes: packNodes(nodes), storageRoots };
}

function summary(c: StateCommitmentResult): unknown {
  return {
    root: hex(c.root),
    nodes: [...eachNode(c.newNodes)].map(([h, rlp]) => `${hex(h)}:${hex(rlp)}`),
    storageRoots: [...c.storageRoots].map(([a, root]) => `${a}:${hex(root)}`),
  };
}

describe('commitment codec', () => {
  it('round-trips through a transfer, the node arrays themselves moved', () => {
    const c = commitment(1);
    const before = summary(c);
    const packed = packCommitment(c, { copyNodes: false });
    expect(packed.newNodes).toBe(c.newNodes);
    const buffers = commitmentBuffers(packed);
    expect(new Set(buffers).size).toBe(buffers.length);
    const received = structuredClone(packed, { transfer: buffers });
    expect(summary(unpackCommitment(received))).toEqual(before);
    // Moved, not copied: the sender's arrays are detached.
    expect(c.newNodes.rlps.length).toBe(0);
  });

  it('sends copies when the sender keeps reading its nodes', () => {
    const c = commitment(2);
    const before = summary(c);
    const packed = packCommitment(c, { copyNodes: true });
    const received = structuredClone(packed, { transfer: commitmentBuffers(packed) });
    expect(summary(unpackCommitment(received))).toEqual(before);
    expect(summary(c)).toEqual(before);
  });

  it('refuses malformed node arrays and unpaired storage roots', () => {
    const packed = packCommitment(commitment(3), { copyNodes: true });
    const bad: PackedCommitment[] = [
      { ...packed, newNodes: { ...packed.newNodes, hashes: packed.newNodes.hashes.subarray(32) } },
      { ...packed, newNodes: { ...packed.newNodes, rlps: packed.newNodes.rlps.subarray(1) } },
      { ...packed, roots: packed.roots.subarray(32) },
      { ...packed, addresses: packed.addresses.subarray(1) },
    ];
    for (const p of bad) expect(() => unpackCommitment(p)).toThrow(TernError);
  });
});
