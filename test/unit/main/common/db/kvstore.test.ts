import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../bench/rng.js';
import {
  compareBytes,
  DbErrorCode,
  type IterateOptions,
  type KVStore,
  MAX_KEY_LENGTH,
  prefixEnd,
} from '../../../../../src/main/common/db/interface.js';
import { LmdbStore } from '../../../../../src/main/common/db/lmdb.js';
import { MemoryStore } from '../../../../../src/main/common/db/memory.js';
import { expectCode } from '../../../../helpers/expectCode.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tern-kv-'));
  dirs.push(d);
  return d;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);
const s = (v: Uint8Array | undefined): string | undefined => (v === undefined ? undefined : dec.decode(v));
const bytes = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

interface Impl {
  /** Opens a store; `at` reopens an earlier one's location (persistent engines only). */
  open(at?: string): { store: KVStore; at: string };
  persistent: boolean;
}

const IMPLEMENTATIONS: [string, Impl][] = [
  [
    'lmdb',
    {
      open: (at) => {
        const path = at ?? join(tempDir(), 'db');
        return { store: new LmdbStore({ path }), at: path };
      },
      persistent: true,
    },
  ],
  ['memory', { open: () => ({ store: new MemoryStore(), at: '' }), persistent: false }],
];

function keysOf(store: { iterate(o?: IterateOptions): Iterable<{ key: Uint8Array }> }, o?: IterateOptions): string[] {
  return [...store.iterate(o)].map((e) => Buffer.from(e.key).toString('hex'));
}

const hex = (k: Uint8Array): string => Buffer.from(k).toString('hex');

describe.each(IMPLEMENTATIONS)('KVStore over %s', (_name, impl) => {
  const open: KVStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((st) => st.close()));
  });
  function fresh(): KVStore {
    const { store } = impl.open();
    open.push(store);
    return store;
  }

  it('reads what a committed batch wrote, and nothing before the commit', async () => {
    const db = fresh();
    expect(db.get(b('a'))).toBeUndefined();
    expect(db.has(b('a'))).toBe(false);
    const batch = db.batch();
    batch.put(b('a'), b('1'));
    batch.put(b('b'), b('2'));
    expect(batch.size).toBe(2);
    expect(batch.byteSize).toBe(4);
    expect(db.get(b('a'))).toBeUndefined();
    await batch.commit();
    expect(s(db.get(b('a')))).toBe('1');
    expect(s(db.get(b('b')))).toBe('2');
    expect(db.has(b('b'))).toBe(true);
  });

  it('applies the operations of a batch in order', async () => {
    const db = fresh();
    const w = db.batch();
    w.put(b('k1'), b('x'));
    w.delete(b('k1'));
    w.delete(b('k2'));
    w.put(b('k2'), b('y'));
    w.put(b('k3'), b('first'));
    w.put(b('k3'), b('second'));
    await w.commit();
    expect(db.has(b('k1'))).toBe(false);
    expect(s(db.get(b('k2')))).toBe('y');
    expect(s(db.get(b('k3')))).toBe('second');
    const d = db.batch();
    d.delete(b('k2'));
    d.delete(b('missing'));
    await d.commit();
    expect(db.get(b('k2'))).toBeUndefined();
  });

  it('stores empty values, large values and binary keys with zero and 0xff bytes', async () => {
    const db = fresh();
    const big = new Uint8Array(3 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const w = db.batch();
    w.put(bytes(0), new Uint8Array(0));
    w.put(bytes(0xff, 0xff), big);
    w.put(bytes(0, 0, 0), bytes(1));
    await w.commit();
    expect(db.get(bytes(0))).toEqual(new Uint8Array(0));
    expect(db.has(bytes(0))).toBe(true);
    // (toEqual over megabytes is slow: compare natively)
    expect(Buffer.compare(db.get(bytes(0xff, 0xff))!, big)).toBe(0);
    expect(db.get(bytes(0, 0, 0))).toEqual(bytes(1));
    expect(db.get(bytes(0, 0))).toBeUndefined();
  });

  it('returns plain Uint8Arrays that the caller owns, and copies what it is given', async () => {
    const db = fresh();
    const key = b('key');
    const value = b('value');
    const w = db.batch();
    w.put(key, value);
    key[0] = 0;
    value[0] = 0;
    await w.commit();
    const got = db.get(b('key'))!;
    expect(got.constructor).toBe(Uint8Array);
    expect(s(got)).toBe('value');
    got[0] = 0x58;
    expect(s(db.get(b('key')))).toBe('value');
    const [entry] = [...db.iterate()];
    expect(entry!.key.constructor).toBe(Uint8Array);
    expect(entry!.value.constructor).toBe(Uint8Array);
    entry!.value[0] = 0x58;
    expect(s(db.get(b('key')))).toBe('value');
  });

  it('rejects empty and over-long keys at put/delete time', async () => {
    const db = fresh();
    const w = db.batch();
    await expectCode(() => w.put(new Uint8Array(0), b('v')), DbErrorCode.invalidKey);
    await expectCode(() => w.put(new Uint8Array(MAX_KEY_LENGTH + 1), b('v')), DbErrorCode.invalidKey);
    await expectCode(() => w.delete(new Uint8Array(0)), DbErrorCode.invalidKey);
    w.put(new Uint8Array(MAX_KEY_LENGTH).fill(1), b('v'));
    await w.commit();
    expect(s(db.get(new Uint8Array(MAX_KEY_LENGTH).fill(1)))).toBe('v');
  });

  it('uses a batch once', async () => {
    const db = fresh();
    const w = db.batch();
    w.put(b('a'), b('1'));
    await w.commit();
    await expectCode(() => w.put(b('b'), b('2')), DbErrorCode.closed);
    await expectCode(w.commit(), DbErrorCode.closed);
    await db.batch().commit(); // an empty batch commits
  });

  it('lands commits in call order when several are in flight', async () => {
    const db = fresh();
    const commits: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      const w = db.batch();
      w.put(b('counter'), b(String(i)));
      w.put(b(`n${String(i).padStart(2, '0')}`), b(String(i)));
      commits.push(w.commit());
    }
    await Promise.all(commits);
    expect(s(db.get(b('counter')))).toBe('49');
    expect(keysOf(db, { prefix: b('n') })).toHaveLength(50);
  });

  it('shows a reader either all or none of a batch', async () => {
    const db = fresh();
    const KEYS = 20;
    let stop = false;
    let observations = 0;
    const reader = (async () => {
      while (!stop) {
        const first = s(db.get(b('k0')));
        for (let i = 1; i < KEYS; i++) expect(s(db.get(b(`k${i}`)))).toBe(first);
        const snap = db.snapshot();
        const vals = new Set([...snap.iterate({ prefix: b('k') })].map((e) => s(e.value)));
        expect(vals.size).toBeLessThanOrEqual(1);
        snap.release();
        observations++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let n = 0; n < 100; n++) {
      const w = db.batch();
      for (let i = 0; i < KEYS; i++) w.put(b(`k${i}`), b(String(n)));
      await w.commit();
    }
    stop = true;
    await reader;
    expect(observations).toBeGreaterThan(0);
    expect(s(db.get(b(`k${KEYS - 1}`)))).toBe('99');
  });

  describe('iteration', () => {
    it('walks keys in unsigned byte order, forwards and backwards', async () => {
      const db = fresh();
      const keys = [bytes(0x80), bytes(0x01), bytes(0x01, 0x00), bytes(0xff), bytes(0x00), bytes(0x7f, 0xff)];
      const w = db.batch();
      for (const k of keys) w.put(k, k);
      await w.commit();
      const sorted = [...keys].sort(compareBytes).map(hex);
      expect(keysOf(db)).toEqual(sorted);
      expect(keysOf(db, { reverse: true })).toEqual([...sorted].reverse());
      for (const e of db.iterate()) expect(e.value).toEqual(e.key);
    });

    it('honours gte, lt, prefix, reverse and limit (against a model, randomised)', async () => {
      const db = fresh();
      const next = xorshiftRng(42).float;
      const model = new Map<string, Uint8Array>();
      const w = db.batch();
      for (let i = 0; i < 400; i++) {
        const len = 1 + Math.floor(next() * 4);
        // Few distinct byte values, so that prefixes and shared stems are common.
        const k = Uint8Array.from({ length: len }, () => [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff][Math.floor(next() * 6)]!);
        model.set(hex(k), k);
        w.put(k, k);
      }
      await w.commit();
      const all = [...model.values()].sort(compareBytes);
      const pick = (): Uint8Array => {
        const r = next();
        if (r < 0.4) return all[Math.floor(next() * all.length)]!;
        return Uint8Array.from({ length: 1 + Math.floor(next() * 3) }, () => Math.floor(next() * 256));
      };
      for (let q = 0; q < 300; q++) {
        const o: IterateOptions = {};
        if (next() < 0.5) o.gte = pick();
        if (next() < 0.5) o.lt = pick();
        if (next() < 0.4) o.prefix = pick().subarray(0, 1 + Math.floor(next() * 2));
        if (next() < 0.5) o.reverse = true;
        if (next() < 0.3) o.limit = Math.floor(next() * 5);
        let want = all.filter(
          (k) =>
            (o.gte === undefined || compareBytes(k, o.gte) >= 0) &&
            (o.lt === undefined || compareBytes(k, o.lt) < 0) &&
            (o.prefix === undefined || (k.length >= o.prefix.length && o.prefix.every((x, i) => k[i] === x))),
        );
        if (o.reverse) want = want.reverse();
        if (o.limit !== undefined) want = want.slice(0, o.limit);
        expect(
          keysOf(db, o),
          JSON.stringify(o, (_k, v) => (v instanceof Uint8Array ? hex(v) : v)),
        ).toEqual(want.map(hex));
      }
    });

    it('iterates a prefix of all 0xff bytes to the end of the keyspace', async () => {
      const db = fresh();
      const w = db.batch();
      for (const k of [bytes(0xfe), bytes(0xff), bytes(0xff, 0xff), bytes(0xff, 0xff, 0x00)]) w.put(k, k);
      await w.commit();
      expect(prefixEnd(bytes(0xff, 0xff))).toBeUndefined();
      expect(keysOf(db, { prefix: bytes(0xff, 0xff) })).toEqual(['ffff', 'ffff00']);
      expect(keysOf(db, { prefix: bytes(0xff), reverse: true })).toEqual(['ffff00', 'ffff', 'ff']);
    });

    it('is empty for inverted bounds and a zero limit', async () => {
      const db = fresh();
      const w = db.batch();
      w.put(b('a'), b('1'));
      await w.commit();
      expect(keysOf(db, { gte: b('b'), lt: b('a') })).toEqual([]);
      expect(keysOf(db, { gte: b('a'), lt: b('a') })).toEqual([]);
      expect(keysOf(db, { limit: 0 })).toEqual([]);
    });

    it('keeps the view it started with while later batches commit', async () => {
      const db = fresh();
      const w = db.batch();
      for (let i = 0; i < 10; i++) w.put(b(`k${i}`), b('old'));
      await w.commit();
      const it = db.iterate({ prefix: b('k') });
      const first = it.next();
      expect(first.done).toBe(false);
      const w2 = db.batch();
      for (let i = 0; i < 10; i++) w2.put(b(`k${i}`), b('new'));
      w2.put(b('k99'), b('new'));
      w2.delete(b('k5'));
      await w2.commit();
      const rest = [...it].map((e) => `${s(e.key)}=${s(e.value)}`);
      expect(rest).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `k${i}=old`));
      expect(s(db.get(b('k3')))).toBe('new');
    });

    it('releases the view when the loop breaks early', async () => {
      const db = fresh();
      const w = db.batch();
      for (let i = 0; i < 100; i++) w.put(b(`k${String(i).padStart(3, '0')}`), b('v'));
      await w.commit();
      for (let round = 0; round < 2000; round++) {
        for (const _ of db.iterate()) break;
      }
      let n = 0;
      for (const _ of db.iterate({ limit: 10 })) n++;
      expect(n).toBe(10);
    });
  });

  describe('snapshots', () => {
    it('reads a consistent view that later commits do not change', async () => {
      const db = fresh();
      const w = db.batch();
      w.put(b('a'), b('1'));
      w.put(b('b'), b('1'));
      await w.commit();
      const snap = db.snapshot();
      const w2 = db.batch();
      w2.put(b('a'), b('2'));
      w2.delete(b('b'));
      w2.put(b('c'), b('2'));
      await w2.commit();
      expect(s(snap.get(b('a')))).toBe('1');
      expect(s(snap.get(b('b')))).toBe('1');
      expect(snap.has(b('c'))).toBe(false);
      expect(keysOf(snap)).toEqual([hex(b('a')), hex(b('b'))]);
      expect(s(db.get(b('a')))).toBe('2');
      expect(db.has(b('b'))).toBe(false);
      expect(keysOf(db)).toEqual([hex(b('a')), hex(b('c'))]);
      snap.release();
    });

    it('is not disturbed by a batch committing while it is read', async () => {
      const db = fresh();
      const w = db.batch();
      for (let i = 0; i < 1000; i++) w.put(b(`k${i}`), b('v0'));
      await w.commit();
      const snap = db.snapshot();
      const big = db.batch();
      for (let i = 0; i < 1000; i++) big.put(b(`k${i}`), new Uint8Array(2000).fill(i & 0xff));
      const committing = big.commit();
      const during: string[] = [];
      while (during.length < 50) {
        during.push(s(snap.get(b(`k${during.length}`)))!);
        await new Promise((r) => setImmediate(r));
      }
      await committing;
      expect(new Set(during)).toEqual(new Set(['v0']));
      expect([...snap.iterate({ prefix: b('k') })].every((e) => s(e.value) === 'v0')).toBe(true);
      expect(db.get(b('k1'))!.length).toBe(2000);
      snap.release();
    });

    it('sees everything committed before it was taken', async () => {
      const db = fresh();
      for (let n = 0; n < 20; n++) {
        const w = db.batch();
        w.put(b('n'), b(String(n)));
        await w.commit();
        const snap = db.snapshot();
        expect(s(snap.get(b('n')))).toBe(String(n));
        snap.release();
      }
    });

    it('keeps many versions apart', async () => {
      const db = fresh();
      const snaps = [];
      for (let n = 0; n < 40; n++) {
        const w = db.batch();
        w.put(b('n'), b(String(n)));
        w.put(b(`only${String(n).padStart(2, '0')}`), b('x'));
        await w.commit();
        snaps.push(db.snapshot());
      }
      snaps.forEach((snap, n) => {
        expect(s(snap.get(b('n')))).toBe(String(n));
        expect(keysOf(snap, { prefix: b('only') })).toHaveLength(n + 1);
      });
      for (const snap of snaps) snap.release();
    });

    it('refuses reads after release; releasing twice is harmless', async () => {
      const db = fresh();
      const snap = db.snapshot();
      snap.release();
      snap.release();
      await expectCode(() => snap.get(b('a')), DbErrorCode.closed);
      await expectCode(() => snap.has(b('a')), DbErrorCode.closed);
      await expectCode(() => snap.iterate(), DbErrorCode.closed);
    });
  });

  it('closes: later use throws DB_CLOSED, snapshots still held are released, closing twice is harmless', async () => {
    const { store: db } = impl.open();
    const w = db.batch();
    w.put(b('a'), b('1'));
    await w.commit();
    const snap = db.snapshot();
    const pending = db.batch();
    pending.put(b('b'), b('2'));
    await db.close();
    await db.close();
    await expectCode(() => db.get(b('a')), DbErrorCode.closed);
    await expectCode(() => db.batch(), DbErrorCode.closed);
    await expectCode(() => db.snapshot(), DbErrorCode.closed);
    await expectCode(() => db.iterate(), DbErrorCode.closed);
    await expectCode(pending.commit(), DbErrorCode.closed);
    await expectCode(() => snap.get(b('a')), DbErrorCode.closed);
  });

  // Only persistent engines have something to reopen (the memory engine has no location).
  if (impl.persistent)
    it('keeps committed data across close and reopen', async () => {
      const { store: db, at } = impl.open();
      const w = db.batch();
      for (let i = 0; i < 100; i++) w.put(b(`k${i}`), b(`v${i}`));
      w.delete(b('k7'));
      await w.commit();
      await db.close();
      const again = impl.open(at).store;
      open.push(again);
      expect(s(again.get(b('k42')))).toBe('v42');
      expect(again.has(b('k7'))).toBe(false);
      expect(keysOf(again)).toHaveLength(99);
    });
});

describe('LmdbStore read-only', () => {
  it('reads an existing database and refuses batches', async () => {
    const path = join(tempDir(), 'db');
    const rw = new LmdbStore({ path });
    const w = rw.batch();
    w.put(b('a'), b('1'));
    await w.commit();
    await rw.close();
    const ro = new LmdbStore({ path, readonly: true });
    try {
      expect(s(ro.get(b('a')))).toBe('1');
      await expectCode(() => ro.batch(), DbErrorCode.readonly);
    } finally {
      await ro.close();
    }
  });
});
