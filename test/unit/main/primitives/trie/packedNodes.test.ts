// The packed new-nodes form: packing, joining, iterating, copying, the buffers to transfer, and the checks on
// arrays that come off another thread.
import { describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../bench/rng.js';
import { TernError } from '../../../../../src/main/common/errors.js';
import type { PackedNodes, TrieNode } from '../../../../../src/main/primitives/trie/interface.js';
import {
  checkNodes,
  concatNodes,
  copyNodes,
  eachNode,
  emptyNodes,
  nodeBuffers,
  nodeCount,
  packNodes,
} from '../../../../../src/main/primitives/trie/packedNodes.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const list = (p: PackedNodes): string[] => [...eachNode(p)].map(([h, rlp]) => `${hex(h)}:${hex(rlp)}`);

function randomNodes(seed: number, n: number): TrieNode[] {
  const r = xorshiftRng(seed);
  // Lengths from 0 (never a real node, but the form allows it) to a few hundred bytes.
  return Array.from({ length: n }, (): TrieNode => [r.bytes(32), r.bytes(r.int(300))]);
}

const show = (nodes: TrieNode[]): string[] => nodes.map(([h, rlp]) => `${hex(h)}:${hex(rlp)}`);

describe('packed trie nodes', () => {
  it('packs pairs and lists them back in order', () => {
    const nodes = randomNodes(1, 50);
    const p = packNodes(nodes);
    checkNodes(p);
    expect(nodeCount(p)).toBe(50);
    expect(p.offsets[0]).toBe(0);
    expect(p.offsets[50]).toBe(p.rlps.length);
    expect(list(p)).toEqual(show(nodes));
    expect(nodeCount(emptyNodes())).toBe(0);
    expect(list(packNodes([]))).toEqual([]);
  });

  it('joins parts in order, skipping empty ones, and returns a lone part as it is', () => {
    const a = randomNodes(2, 7);
    const b = randomNodes(3, 13);
    const c = randomNodes(4, 1);
    const joined = concatNodes([packNodes(a), emptyNodes(), packNodes(b), packNodes(c)]);
    checkNodes(joined);
    expect(list(joined)).toEqual(show([...a, ...b, ...c]));
    const lone = packNodes(b);
    expect(concatNodes([emptyNodes(), lone])).toBe(lone);
    expect(nodeCount(concatNodes([]))).toBe(0);
  });

  it('copies into buffers of its own, which transfer without touching the original', () => {
    // Views into one shared buffer, as the native result hands them out.
    const shared = new Uint8Array(4 + 64 + 10);
    shared.fill(9);
    const p: PackedNodes = {
      hashes: shared.subarray(4, 68),
      rlps: shared.subarray(68),
      offsets: Uint32Array.of(0, 3, 10),
    };
    checkNodes(p);
    expect(nodeBuffers(p)).toHaveLength(2);
    const copy = copyNodes(p);
    const moved = structuredClone(copy, { transfer: nodeBuffers(copy) });
    expect(list(moved)).toEqual(list(p));
    expect(copy.rlps.length).toBe(0);
    expect(p.rlps.length).toBe(10);
  });

  it('rejects arrays that do not form a packed set', () => {
    const p = packNodes(randomNodes(5, 3));
    const bad: PackedNodes[] = [
      { ...p, offsets: new Uint32Array(0) },
      { ...p, hashes: p.hashes.subarray(1) },
      { ...p, offsets: Uint32Array.of(1, ...p.offsets.subarray(1)) },
      { ...p, rlps: p.rlps.subarray(1) },
      { ...p, offsets: Uint32Array.of(0, p.rlps.length, 0, p.rlps.length) },
    ];
    for (const b of bad) {
      expect(() => checkNodes(b)).toThrow(TernError);
      expect(() => checkNodes(b)).toThrow(/packed trie nodes/);
    }
    expect(() => packNodes([[new Uint8Array(31), new Uint8Array(1)]])).toThrow(/hash of 31 bytes/);
  });
});
