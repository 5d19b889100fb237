// StagedBatch: reads over a batch see its pending writes (last write wins, deletes hide base rows), iteration merges
// them into the base's order in both directions with limits, and nothing reaches the store before commit().
import { describe, expect, it } from 'vitest';
import type { KVStore } from '../../../../../src/main/common/db/interface.js';
import { MemoryStore } from '../../../../../src/main/common/db/memory.js';
import { StagedBatch } from '../../../../../src/main/common/db/stagedBatch.js';

const b = (...xs: number[]) => Uint8Array.from(xs);
const keys = (it: Iterable<{ key: Uint8Array }>) => [...it].map((e) => Buffer.from(e.key).toString('hex'));

async function seeded(): Promise<KVStore> {
  const store = new MemoryStore();
  const w = store.batch();
  for (const k of [0x10, 0x12, 0x14, 0x20]) w.put(b(1, k), b(k));
  await w.commit();
  return store;
}

describe('StagedBatch', () => {
  it('reads its own pending puts and deletes over the base, last write winning', async () => {
    const store = await seeded();
    const s = new StagedBatch(store.batch(), store);
    s.put(b(1, 0x10), b(0xaa));
    s.delete(b(1, 0x12));
    s.put(b(1, 0x13), b(0x13));
    s.put(b(1, 0x13), b(0x31));
    const buf = b(0x55);
    s.put(b(1, 0x15), buf);
    buf[0] = 0; // the caller's buffer is not kept
    expect(s.get(b(1, 0x10))).toEqual(b(0xaa));
    expect(s.get(b(1, 0x12))).toBeUndefined();
    expect(s.has(b(1, 0x12))).toBe(false);
    expect(s.get(b(1, 0x13))).toEqual(b(0x31));
    expect(s.get(b(1, 0x14))).toEqual(b(0x14));
    expect(s.get(b(1, 0x15))).toEqual(b(0x55));
    // Nothing is in the store until the batch commits, then all of it is.
    expect(store.get(b(1, 0x10))).toEqual(b(0x10));
    expect(store.has(b(1, 0x13))).toBe(false);
    await s.commit();
    expect(store.get(b(1, 0x10))).toEqual(b(0xaa));
    expect(store.has(b(1, 0x12))).toBe(false);
    expect(store.get(b(1, 0x13))).toEqual(b(0x31));
  });

  it('iterates the merged view in order, reversed and limited, within the range only', async () => {
    const store = await seeded();
    const s = new StagedBatch(store.batch(), store);
    s.delete(b(1, 0x12));
    s.put(b(1, 0x11), b(0x11));
    s.put(b(1, 0x19), b(0x19));
    s.put(b(2, 0x00), b(0)); // outside the prefix below
    const prefix = b(1);
    expect(keys(s.iterate({ prefix }))).toEqual(['0110', '0111', '0114', '0119', '0120']);
    expect(keys(s.iterate({ prefix, reverse: true }))).toEqual(['0120', '0119', '0114', '0111', '0110']);
    expect(keys(s.iterate({ prefix, limit: 2 }))).toEqual(['0110', '0111']);
    expect(keys(s.iterate({ prefix, reverse: true, limit: 2 }))).toEqual(['0120', '0119']);
    expect(keys(s.iterate({ gte: b(1, 0x11), lt: b(1, 0x20) }))).toEqual(['0111', '0114', '0119']);
    expect([...s.iterate({ prefix: b(1, 0x19) })].map((e) => e.value)).toEqual([b(0x19)]);
    // A range without pending writes is the base's own iteration.
    expect(keys(s.iterate({ prefix: b(3) }))).toEqual([]);
  });
});
