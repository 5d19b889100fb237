// ethereum/tests TrieTests: every root case through the native binding, the JS builder and the incremental trie;
// trietestnextprev through the incremental trie's ordered iteration. A file or case shape this runner does not
// know fails.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeFunction, nativeStatus } from '../../src/main/native/index.js';
import { keccak256, packInputs } from '../../src/main/native/keccak.js';
import type { TrieUpdate } from '../../src/main/primitives/trie/interface.js';
import { MemoryNodeStore } from '../../src/main/primitives/trie/memory.js';
import { MerkleTrie } from '../../src/main/primitives/trie/merkleTrie.js';
import { EMPTY_TRIE_ROOT, secureTrieRootJs, type TrieEntry, trieRootJs } from '../../src/main/primitives/trie/root.js';
import { FIXTURES } from '../helpers/paths.js';

const DIR = join(FIXTURES, 'ethereum-tests/TrieTests');

type Kind = 'list' | 'map' | 'nextprev';
/** Every file this runner knows: how its cases are shaped and whether keys are hashed. */
const FILES: Record<string, { kind: Kind; secure: boolean }> = {
  'trietest.json': { kind: 'list', secure: false },
  'trietest_secureTrie.json': { kind: 'list', secure: true },
  'trieanyorder.json': { kind: 'map', secure: false },
  'trieanyorder_secureTrie.json': { kind: 'map', secure: true },
  'hex_encoded_securetrie_test.json': { kind: 'map', secure: true },
  'trietestnextprev.json': { kind: 'nextprev', secure: false },
};

const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;

/** Fixture strings: 0x-prefixed ones are hex, others UTF-8; null (delete) becomes the empty value. */
function bytes(s: string | null): Uint8Array {
  if (s === null) return new Uint8Array(0);
  if (s.startsWith('0x')) return Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
  return new TextEncoder().encode(s);
}

function load(file: string): Record<string, Record<string, unknown>> {
  return JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Record<string, Record<string, unknown>>;
}

/** The entries of a root case in order, or an error naming what is not understood. */
function entriesOf(kind: Kind, c: Record<string, unknown>): TrieEntry[] {
  const extra = Object.keys(c).filter((k) => !['in', 'root', 'hexEncoded'].includes(k));
  if (extra.length > 0) throw new Error(`unknown case fields ${extra.join(', ')}`);
  if (typeof c.root !== 'string') throw new Error('case has no root string');
  if ('hexEncoded' in c && c.hexEncoded !== true) throw new Error(`hexEncoded is ${JSON.stringify(c.hexEncoded)}`);
  const input = c.in;
  if (kind === 'list') {
    if (!Array.isArray(input)) throw new Error('expected "in" to be a list of [key, value]');
    return input.map((pair: unknown) => {
      const ok =
        Array.isArray(pair) &&
        pair.length === 2 &&
        typeof pair[0] === 'string' &&
        (typeof pair[1] === 'string' || pair[1] === null);
      if (!ok) throw new Error(`unknown list item ${JSON.stringify(pair)}`);
      return [bytes(pair[0] as string), bytes(pair[1] as string | null)];
    });
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('expected "in" to be a map');
  return Object.entries(input).map(([k, v]) => {
    if (typeof v !== 'string' && v !== null) throw new Error(`unknown value ${JSON.stringify(v)}`);
    return [bytes(k), bytes(v)];
  });
}

function nativeRoot(secure: boolean, entries: TrieEntry[]): Uint8Array {
  const fn = nativeFunction(secure ? 'secureTrieRoot' : 'trieRoot');
  if (fn === undefined) throw new Error('native trie functions are not loaded');
  const keys = packInputs(entries.map((e) => e[0]));
  const values = packInputs(entries.map((e) => e[1]));
  return fn(keys.data, keys.offsets, values.data, values.offsets);
}

/** The root the incremental trie reaches applying the entries in order, one per call (list) or all in one. */
function incrementalRoot(secure: boolean, entries: TrieEntry[], oneByOne: boolean): Uint8Array {
  const store = new MemoryNodeStore();
  const trie = new MerkleTrie(store);
  const updates: TrieUpdate[] = entries.map(([k, v]) => [secure ? keccak256(k) : k, v.length === 0 ? null : v]);
  let root = EMPTY_TRIE_ROOT;
  for (const batch of oneByOne ? updates.map((u) => [u]) : [updates]) {
    const result = trie.applyUpdates(root, batch);
    store.putAll(result.newNodes);
    root = result.root;
  }
  return root;
}

// The native path must run wherever the module is built; only a deliberate opt-out or a machine without cargo
// (outside CI) leaves it to the JS path, and then the native cases say so instead of passing.
const nativeLoaded = nativeFunction('trieRoot') !== undefined && nativeFunction('secureTrieRoot') !== undefined;
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const nativeRequired = inCi || process.env.TERN_REQUIRE_NATIVE === '1';

describe('TrieTests', () => {
  it('knows every fixture file', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(FILES[f], `no runner for TrieTests/${f}`).toBeDefined();
    expect(readdirSync(DIR).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  it.runIf(nativeRequired)('has the native trie functions (required in CI)', () => {
    expect(nativeLoaded, `native module: ${nativeStatus().error ?? 'trie functions missing'}`).toBe(true);
  });

  for (const [file, { kind, secure }] of Object.entries(FILES)) {
    if (kind === 'nextprev') continue;
    describe(file, () => {
      for (const [name, c] of Object.entries(load(file))) {
        it(`${name} (js)`, () => {
          const entries = entriesOf(kind, c);
          expect(hex((secure ? secureTrieRootJs : trieRootJs)(entries))).toBe(c.root);
        });
        if (nativeLoaded) {
          it(`${name} (native)`, () => {
            expect(hex(nativeRoot(secure, entriesOf(kind, c)))).toBe(c.root);
          });
        } else {
          it.skip(`${name} (native): module not loaded (${nativeStatus().error ?? '?'})`, () => {});
        }
        it(`${name} (incremental)`, () => {
          const entries = entriesOf(kind, c);
          expect(hex(incrementalRoot(secure, entries, kind === 'list'))).toBe(c.root);
          if (kind === 'list') expect(hex(incrementalRoot(secure, entries, false))).toBe(c.root);
        });
      }
    });
  }

  describe('trietestnextprev.json (ordered iteration of the incremental trie)', () => {
    for (const [name, c] of Object.entries(load('trietestnextprev.json'))) {
      it(name, () => {
        expect(Object.keys(c).sort()).toEqual(['in', 'tests']);
        const keys = c.in;
        const tests = c.tests;
        if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) throw new Error('"in" is not strings');
        if (!Array.isArray(tests)) throw new Error('"tests" is not a list');
        const store = new MemoryNodeStore();
        const trie = new MerkleTrie(store);
        const result = trie.applyUpdates(
          EMPTY_TRIE_ROOT,
          keys.map((k) => [bytes(k), bytes(k)]),
        );
        store.putAll(result.newNodes);
        const ordered = [...trie.entries(result.root)].map(([k]) => Buffer.from(k).toString('utf8'));
        expect(ordered).toEqual([...keys].sort());
        for (const t of tests) {
          const ok = Array.isArray(t) && t.length === 3 && t.every((x) => typeof x === 'string');
          if (!ok) throw new Error(`unknown test ${JSON.stringify(t)}`);
          const [at, prev, next] = t as [string, string, string];
          // Byte order equals string order here: the keys are ASCII.
          const before = ordered.filter((k) => k < at);
          const after = ordered.filter((k) => k > at);
          expect([at, before.at(-1) ?? '', after[0] ?? '']).toEqual([at, prev, next]);
        }
      });
    }
  });
});
