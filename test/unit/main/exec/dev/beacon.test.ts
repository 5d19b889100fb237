// The dev beacon record: SSZ header roots, slot arithmetic, parent links, blob retention and reorg rewinds.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { beaconHeaderRoot, DevBeacon, versionedHash } from '../../../../../src/main/exec/dev/beacon.js';

const sha = (a: Uint8Array, b: Uint8Array) => new Uint8Array(createHash('sha256').update(a).update(b).digest());
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const z = new Uint8Array(32);

describe('beaconHeaderRoot', () => {
  it('is the depth-3 zero hash for an all-zero header', () => {
    const root = beaconHeaderRoot({ slot: 0n, proposerIndex: 0n, parentRoot: z, stateRoot: z, bodyRoot: z });
    // zerohashes[3] of SSZ merkleization (it appears in every sidecar inclusion proof of an empty list).
    expect(hex(root)).toBe('0xc78009fdf07fc56a11f122370658a353aaa542ed63e44c4bc15ff4cd105ab33c');
  });

  it('puts the slot little-endian in the first leaf and the roots in leaves 2-4', () => {
    const slotLeaf = new Uint8Array(32);
    slotLeaf[0] = 0x02;
    slotLeaf[1] = 0x01;
    const p = new Uint8Array(32).fill(1);
    const s = new Uint8Array(32).fill(2);
    const b = new Uint8Array(32).fill(3);
    const want = sha(sha(sha(slotLeaf, z), sha(p, s)), sha(sha(b, z), sha(z, z)));
    expect(beaconHeaderRoot({ slot: 0x102n, proposerIndex: 0n, parentRoot: p, stateRoot: s, bodyRoot: b })).toEqual(
      want,
    );
  });
});

describe('DevBeacon', () => {
  const block = (n: bigint, timestamp: bigint) => ({
    number: n,
    hash: new Uint8Array(32).fill(Number(n) + 1),
    timestamp,
    stateRoot: new Uint8Array(32).fill(0xee),
  });

  it('maps whole slots and links parents', () => {
    const b = new DevBeacon({ genesisTime: 1000n, secondsPerSlot: 4 });
    expect(b.headRoot()).toEqual(z);
    const g = b.add(block(0n, 1000n));
    expect(g.header.slot).toBe(0n);
    const one = b.add(block(1n, 1012n));
    expect(one.header.slot).toBe(3n);
    expect(one.header.parentRoot).toEqual(g.root);
    expect(b.headRoot()).toEqual(one.root);
    expect(b.bySlot(3n)).toBe(one);
    expect(b.bySlot(1n)).toBeUndefined();
    expect(b.byRoot(g.root)).toBe(g);
    expect(b.timeOf(5n)).toBe(1020n);
    expect(() => b.slotOf(1013n)).toThrow(/slot boundary/);
    expect(() => b.add(block(2n, 1012n))).toThrow(/does not follow/);
  });

  it('drops the oldest sidecars past the byte budget', () => {
    const b = new DevBeacon({ genesisTime: 0n, secondsPerSlot: 1, maxBlobBytes: 300 });
    const sc = (n: number) => ({
      blob: new Uint8Array(100).fill(n),
      commitment: new Uint8Array(48).fill(n),
      proof: new Uint8Array(48),
      versionedHash: versionedHash(new Uint8Array(48).fill(n)),
    });
    b.add(block(0n, 0n));
    const one = b.add(block(1n, 1n), [sc(1), sc(2)]);
    const two = b.add(block(2n, 2n), [sc(3)]);
    expect(one.sidecars).toHaveLength(2);
    const three = b.add(block(3n, 3n), [sc(4)]);
    expect(one.sidecars).toBeUndefined();
    expect(two.sidecars).toHaveLength(1);
    expect(three.sidecars).toHaveLength(1);
  });

  it('rewinds to an execution block: later blocks and their sidecars go, their slots can be filled again', () => {
    const b = new DevBeacon({ genesisTime: 0n, secondsPerSlot: 1, maxBlobBytes: 250 });
    const sc = (n: number) => ({
      blob: new Uint8Array(100).fill(n),
      commitment: new Uint8Array(48).fill(n),
      proof: new Uint8Array(48),
      versionedHash: versionedHash(new Uint8Array(48).fill(n)),
    });
    b.add(block(0n, 0n));
    const one = b.add(block(1n, 1n), [sc(1)]);
    const two = b.add(block(2n, 2n), [sc(2)]);
    const three = b.add(block(3n, 3n));
    b.rewind(1n);
    expect(b.head()).toBe(one);
    expect(b.headRoot()).toEqual(one.root);
    expect(b.bySlot(2n)).toBeUndefined();
    expect(b.bySlot(3n)).toBeUndefined();
    expect(b.byRoot(two.root)).toBeUndefined();
    expect(b.byRoot(three.root)).toBeUndefined();
    expect(b.byNumber(2n)).toBeUndefined();
    expect(two.sidecars).toBeUndefined();
    // A replacement block reuses slot 2 on top of block 1.
    const other = { ...block(2n, 2n), hash: new Uint8Array(32).fill(0xaa) };
    const two2 = b.add(other, [sc(5)]);
    expect(two2.header.parentRoot).toEqual(one.root);
    expect(b.bySlot(2n)).toBe(two2);
    expect(b.byNumber(2n)).toBe(two2);
    // The dropped block's blob bytes were released: 200 bytes held, both blocks keep their sidecars.
    expect(one.sidecars).toHaveLength(1);
    expect(two2.sidecars).toHaveLength(1);
    expect(() => b.rewind(9n)).toThrow(/no beacon block wraps execution block 9/);
  });

  it('computes EIP-4844 versioned hashes', () => {
    const c = new Uint8Array(48).fill(7);
    const h = versionedHash(c);
    expect(h[0]).toBe(1);
    expect(h.subarray(1)).toEqual(new Uint8Array(createHash('sha256').update(c).digest()).subarray(1));
  });
});
