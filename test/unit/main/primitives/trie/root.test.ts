// Trie roots of whole key sets: edge cases, node-size boundaries, and random sets cross-checked against
// @ethereumjs/mpt, through the native path and the JS path.
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../bench/rng.js';
import { nativeFunction, nativeStatus } from '../../../../../src/main/native/index.js';
import { keccak256, packInputs } from '../../../../../src/main/native/keccak.js';
import {
  EMPTY_TRIE_ROOT,
  indexKey,
  orderedTrieRoot,
  orderedTrieRootJs,
  secureTrieRoot,
  secureTrieRootJs,
  type TrieEntry,
  trieRoot,
  trieRootJs,
} from '../../../../../src/main/primitives/trie/root.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const EMPTY = '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/** Deterministic bytes (xorshift32), so a failure reproduces. */
function rng(seed: number): (n: number) => Uint8Array {
  return xorshiftRng(seed).bytes;
}

type Roots = {
  raw: (e: ReadonlyArray<TrieEntry>) => Uint8Array;
  secure: (e: ReadonlyArray<TrieEntry>) => Uint8Array;
  ordered: (v: readonly Uint8Array[]) => Uint8Array;
};

// The exported functions (native when loaded) and the JS twins; the spec suite also calls the binding directly.
const PATHS: [string, Roots][] = [
  ['exported', { raw: trieRoot, secure: secureTrieRoot, ordered: orderedTrieRoot }],
  ['js', { raw: trieRootJs, secure: secureTrieRootJs, ordered: orderedTrieRootJs }],
];

async function reference(entries: ReadonlyArray<TrieEntry>, secure: boolean): Promise<string> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: secure });
  for (const [k, v] of entries) await trie.put(k, v.length === 0 ? null : v);
  return hex(trie.root());
}

describe.each(PATHS)('trie roots (%s)', (_name, roots) => {
  it('empty trie', () => {
    expect(hex(EMPTY_TRIE_ROOT)).toBe(EMPTY);
    expect(hex(keccak256(Uint8Array.of(0x80)))).toBe(EMPTY);
    expect(hex(roots.raw([]))).toBe(EMPTY);
    expect(hex(roots.secure([]))).toBe(EMPTY);
    expect(hex(roots.ordered([]))).toBe(EMPTY);
    // Only empty values: nothing is in the trie.
    expect(hex(roots.raw([[utf8('a'), new Uint8Array(0)]]))).toBe(EMPTY);
  });

  it('returns a fresh 32-byte array each call', () => {
    const a = roots.raw([]);
    a[0] = 0;
    expect(hex(roots.raw([]))).toBe(EMPTY);
    expect(roots.raw([[utf8('k'), utf8('v')]]).length).toBe(32);
  });

  it('single key, including the empty key', async () => {
    for (const key of [new Uint8Array(0), utf8('A'), new Uint8Array(32).fill(0xff)]) {
      const entries: TrieEntry[] = [[key, utf8('value')]];
      expect(hex(roots.raw(entries))).toBe(await reference(entries, false));
      expect(hex(roots.secure(entries))).toBe(await reference(entries, true));
    }
  });

  it('keys that are prefixes of each other (branch values)', async () => {
    const entries: TrieEntry[] = ['', 'd', 'do', 'dog', 'doge', 'dogs', 'e', 'dogecoin'].map((k, i) => [
      utf8(k),
      utf8(`v${i}`),
    ]);
    expect(hex(roots.raw(entries))).toBe(await reference(entries, false));
    // Key "\x10" and "\x10\x00": a value at the branch and a child leaf with an empty remaining path.
    const nib: TrieEntry[] = [
      [Uint8Array.of(0x10), utf8('a')],
      [Uint8Array.of(0x10, 0x00), utf8('b')],
      [Uint8Array.of(0x10, 0x01), utf8('c')],
    ];
    expect(hex(roots.raw(nib))).toBe(await reference(nib, false));
  });

  it('later duplicates win and empty values delete', () => {
    const want = roots.raw([
      [utf8('a'), utf8('2')],
      [utf8('c'), utf8('3')],
    ]);
    const got = roots.raw([
      [utf8('a'), utf8('1')],
      [utf8('b'), utf8('x')],
      [utf8('c'), utf8('3')],
      [utf8('a'), utf8('2')],
      [utf8('b'), new Uint8Array(0)],
      [utf8('d'), new Uint8Array(0)],
    ]);
    expect(hex(got)).toBe(hex(want));
    // A key deleted and set again is present.
    expect(
      hex(
        roots.raw([
          [utf8('a'), new Uint8Array(0)],
          [utf8('a'), utf8('2')],
          [utf8('c'), utf8('3')],
        ]),
      ),
    ).toBe(hex(want));
  });

  it('embeds nodes under 32 bytes and hashes those of 31, 32 and 33 bytes correctly', async () => {
    // Keys 0x01 and 0x02 sit under an extension [0] and a branch; each child is a leaf [0x20, value] of len + 3
    // bytes, so value lengths 28, 29, 30 give leaves of 31 (embedded), 32 and 33 bytes (hashed).
    for (let len = 25; len <= 32; len++) {
      const entries: TrieEntry[] = [
        [Uint8Array.of(0x01), new Uint8Array(len).fill(0x61)],
        [Uint8Array.of(0x02), new Uint8Array(len).fill(0x62)],
      ];
      expect(`${len}: ${hex(roots.raw(entries))}`).toBe(`${len}: ${await reference(entries, false)}`);
    }
    // A root shorter than 32 bytes is still hashed.
    const tiny: TrieEntry[] = [[Uint8Array.of(0x01), Uint8Array.of(0x02)]];
    expect(hex(roots.raw(tiny))).toBe(hex(keccak256(Uint8Array.of(0xc4, 0x82, 0x20, 0x01, 0x02)).slice()));
    // Values crossing the 55-byte long-string boundary, and a long key.
    for (const len of [1, 55, 56, 57, 300]) {
      const entries: TrieEntry[] = [
        [utf8('x'), new Uint8Array(len).fill(0x80)],
        [utf8('y'), new Uint8Array(len).fill(0x7f)],
        [new Uint8Array(200).fill(0x33), utf8('long key')],
      ];
      expect(hex(roots.raw(entries))).toBe(await reference(entries, false));
    }
  });

  it('matches @ethereumjs/mpt on random sets', async () => {
    const bytes = rng(0xc0ffee);
    for (const secure of [false, true]) {
      for (const n of [2, 17, 300]) {
        const entries: TrieEntry[] = [];
        for (let i = 0; i < n; i++) {
          const r = bytes(2);
          // Short keys from a small alphabet collide and nest; values from 1 to 80 bytes.
          const key = secure ? bytes(20) : bytes(((r[0] as number) % 4) + 1).map((b) => b & 0x11);
          entries.push([key, bytes(((r[1] as number) % 80) + 1)]);
        }
        const root = secure ? roots.secure(entries) : roots.raw(entries);
        expect(hex(root)).toBe(await reference(entries, secure));
      }
    }
  });

  it('ordered trie: key RLP(i), across the 0x7f/0x80 boundary', async () => {
    const bytes = rng(7);
    const values = Array.from({ length: 300 }, (_, i) => bytes((i % 90) + 1));
    const entries: TrieEntry[] = values.map((v, i) => [indexKey(i), v]);
    expect(hex(indexKey(0))).toBe('80');
    expect(hex(indexKey(127))).toBe('7f');
    expect(hex(indexKey(128))).toBe('8180');
    expect(hex(indexKey(256))).toBe('820100');
    expect(hex(roots.ordered(values))).toBe(await reference(entries, false));
    expect(hex(roots.ordered(values.slice(0, 1)))).toBe(await reference(entries.slice(0, 1), false));
  });
});

describe('native binding', () => {
  const raw = nativeFunction('trieRoot');
  const secure = nativeFunction('secureTrieRoot');
  const ordered = nativeFunction('orderedTrieRoot');
  const loaded = nativeStatus().loaded;

  it('lists the trie functions in nativeStatus()', () => {
    const { functions } = nativeStatus();
    for (const name of ['trieRoot', 'secureTrieRoot', 'orderedTrieRoot']) {
      expect(functions[name]).toBe(loaded ? 'native' : 'js');
    }
  });

  it.runIf(raw !== undefined && secure !== undefined && ordered !== undefined)('agrees with the JS path', () => {
    const bytes = rng(99);
    const entries: TrieEntry[] = Array.from({ length: 500 }, (_, i) => [
      bytes((i % 5) + 1),
      i % 7 === 0 ? new Uint8Array(0) : bytes((i % 70) + 1),
    ]);
    const keys = packInputs(entries.map((e) => e[0]));
    const values = packInputs(entries.map((e) => e[1]));
    expect(hex(raw!(keys.data, keys.offsets, values.data, values.offsets))).toBe(hex(trieRootJs(entries)));
    expect(hex(secure!(keys.data, keys.offsets, values.data, values.offsets))).toBe(hex(secureTrieRootJs(entries)));
    const vals = entries.map((e) => e[1]).filter((v) => v.length > 0);
    const packed = packInputs(vals);
    expect(hex(ordered!(packed.data, packed.offsets))).toBe(hex(orderedTrieRootJs(vals)));
  });

  it.runIf(raw !== undefined && ordered !== undefined)('rejects bad arguments with a TypeError naming them', () => {
    const call = raw as (...args: unknown[]) => Uint8Array;
    const callOrdered = ordered as (...args: unknown[]) => Uint8Array;
    const k = new Uint8Array(4);
    expect(() => call(null, new Uint32Array([0, 4]), k, new Uint32Array([0, 4]))).toThrow(
      'trieRoot: keys must be a Uint8Array',
    );
    expect(() => call(k, [0, 4], k, new Uint32Array([0, 4]))).toThrow('trieRoot: keyOffsets must be a Uint32Array');
    expect(() => call(k, new Uint32Array([0, 5]), k, new Uint32Array([0, 4]))).toThrow(
      'trieRoot: keyOffsets[1] = 5 is past the end of data (length 4)',
    );
    expect(() => call(k, new Uint32Array([0, 4]), k, new Uint32Array([0, 2, 1]))).toThrow(
      'trieRoot: valueOffsets must not decrease',
    );
    expect(() => call(k, new Uint32Array([0, 4]), k, new Uint32Array([0, 2, 4]))).toThrow(
      'trieRoot: 1 keys but 2 values',
    );
    expect(() => callOrdered(k, new Uint32Array([0, 9]))).toThrow(TypeError);
    // Raw keys are bounded (recursion depth); the exported trieRoot takes longer ones through the JS builder.
    const long = new Uint8Array(257).fill(1);
    const offsets = new Uint32Array([0, 257]);
    expect(() => call(long, offsets, k, new Uint32Array([0, 4]))).toThrow(RangeError);
    const entries: TrieEntry[] = [
      [long, k],
      [Uint8Array.of(1), k],
    ];
    expect(hex(trieRoot(entries))).toBe(hex(trieRootJs(entries)));
    const atLimit = new Uint8Array(256).fill(1);
    expect(hex(call(atLimit, new Uint32Array([0, 256]), k, new Uint32Array([0, 4])))).toBe(
      hex(trieRootJs([[atLimit, k]])),
    );
  });
});
