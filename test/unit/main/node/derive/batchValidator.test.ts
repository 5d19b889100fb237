import { describe, expect, it } from 'vitest';
import {
  checkSingularBatch,
  checkSpanBatchPrefix,
  type SafeBlockFetcher,
  type SpanBatchView,
} from '../../../../../src/main/node/derive/batchValidator.js';
import { fromHex, type L1BlockRef, type L2BlockRef } from '../../../../../src/main/node/derive/types.js';
import type { SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';
import { testRollupConfig } from './fixtures.js';

const h = (n: number) => `0x${n.toString(16).padStart(8, '0')}${'ab'.repeat(28)}`;
const l1 = (n: number, t: number): L1BlockRef => ({
  number: n,
  hash: h(0x1000 + n),
  parentHash: h(0x1000 + n - 1),
  timestamp: t,
});
const L1 = [l1(100, 1000), l1(101, 1012), l1(102, 1024)];
const safe: L2BlockRef = {
  number: 5,
  hash: h(0x2005),
  parentHash: h(0x2004),
  timestamp: 1010,
  l1origin: { number: 100, hash: L1[0]!.hash },
  sequenceNumber: 5,
};
const batch = (o: Partial<SingularBatch> = {}): SingularBatch => ({
  parentHash: fromHex(safe.hash),
  epochNum: 100,
  epochHash: fromHex(L1[0]!.hash),
  timestamp: 1012,
  transactions: [Uint8Array.of(2, 1)],
  ...o,
});
const noL2: SafeBlockFetcher = {
  l2BlockRefByNumber: () => Promise.reject(new Error('none')),
  l2BlockByNumber: () => Promise.reject(new Error('none')),
};

describe('singular batch validity', () => {
  const cfg = testRollupConfig();
  const holo = testRollupConfig({ ecotone_time: 0, fjord_time: 0, granite_time: 0, holocene_time: 0 });
  const inc = L1[1]!;
  const v = (b: SingularBatch, c = cfg, blocks = L1) => checkSingularBatch(c, blocks, safe, b, inc).validity;

  it('accepts the next batch', () => expect(v(batch())).toBe('accept'));
  it('keeps future batches before Holocene and drops them after', () => {
    expect(v(batch({ timestamp: 1014 }))).toBe('future');
    expect(v(batch({ timestamp: 1014 }), holo)).toBe('drop');
  });
  it('drops old batches before Holocene and calls them past after', () => {
    expect(v(batch({ timestamp: 1010 }))).toBe('drop');
    expect(v(batch({ timestamp: 1010 }), holo)).toBe('past');
  });
  it('drops a wrong parent, a late inclusion, a stale or far epoch, a wrong epoch hash', () => {
    expect(v(batch({ parentHash: new Uint8Array(32) }))).toBe('drop');
    expect(checkSingularBatch(cfg, L1, safe, batch(), l1(111, 2000)).validity).toBe('drop');
    expect(v(batch({ epochNum: 99 }))).toBe('drop');
    expect(v(batch({ epochNum: 102 }))).toBe('drop');
    expect(v(batch({ epochHash: new Uint8Array(32) }))).toBe('drop');
  });
  it('needs the next origin to advance the epoch, and the L2 time must not precede it', () => {
    expect(v(batch({ epochNum: 101, epochHash: fromHex(L1[1]!.hash) }), cfg, L1.slice(0, 1))).toBe('undecided');
    expect(v(batch({ epochNum: 101, epochHash: fromHex(L1[1]!.hash) }))).toBe('accept');
    const late = [L1[0]!, l1(101, 1013)];
    expect(v(batch({ epochNum: 101, epochHash: fromHex(late[1]!.hash) }), cfg, late)).toBe('drop');
  });
  it('enforces the sequencer drift (600 s before Fjord, 1800 s after): empty batches only while the next origin is ahead', () => {
    const far: L2BlockRef = { ...safe, timestamp: 1700 };
    const b = batch({ parentHash: fromHex(far.hash), timestamp: 1702 });
    const blocks = [L1[0]!, l1(101, 1800)];
    expect(checkSingularBatch(cfg, blocks, far, b, inc).validity).toBe('drop');
    expect(checkSingularBatch(cfg, blocks, far, { ...b, transactions: [] }, inc).validity).toBe('accept');
    expect(checkSingularBatch(cfg, [L1[0]!, l1(101, 1702)], far, { ...b, transactions: [] }, inc).validity).toBe(
      'drop',
    );
    const fjord = testRollupConfig({ ecotone_time: 0, fjord_time: 0 });
    expect(checkSingularBatch(fjord, blocks, far, b, inc).validity).toBe('accept');
  });
  it('drops empty, deposit, and pre-Isthmus 7702 transactions', () => {
    expect(v(batch({ transactions: [new Uint8Array(0)] }))).toBe('drop');
    expect(v(batch({ transactions: [Uint8Array.of(0x7e, 1)] }))).toBe('drop');
    expect(v(batch({ transactions: [Uint8Array.of(4, 1)] }))).toBe('drop');
    const isthmus = testRollupConfig({
      ecotone_time: 0,
      fjord_time: 0,
      granite_time: 0,
      holocene_time: 0,
      isthmus_time: 0,
    });
    expect(v(batch({ transactions: [Uint8Array.of(4, 1)] }), isthmus)).toBe('accept');
  });
  it('drops a Jovian activation block batch that carries transactions', () => {
    const jovian = testRollupConfig({
      ecotone_time: 0,
      fjord_time: 0,
      granite_time: 0,
      holocene_time: 0,
      isthmus_time: 0,
      jovian_time: 1012,
    });
    expect(v(batch(), jovian)).toBe('drop');
    expect(v(batch({ transactions: [] }), jovian)).toBe('accept');
  });
  it('drops an interop activation block batch that carries transactions', () => {
    const interop = testRollupConfig({
      ecotone_time: 0,
      fjord_time: 0,
      granite_time: 0,
      holocene_time: 0,
      isthmus_time: 0,
      jovian_time: 0,
      interop_time: 1012,
    });
    expect(v(batch(), interop)).toBe('drop');
    expect(v(batch({ transactions: [] }), interop)).toBe('accept');
    const after = testRollupConfig({
      ecotone_time: 0,
      fjord_time: 0,
      granite_time: 0,
      holocene_time: 0,
      isthmus_time: 0,
      jovian_time: 0,
      interop_time: 0,
    });
    expect(v(batch(), after)).toBe('accept');
  });
});

describe('span batch prefix', () => {
  const cfg = testRollupConfig({ ecotone_time: 0, fjord_time: 0, granite_time: 0, holocene_time: 0 });
  const span = (o: Partial<SpanBatchView> = {}): SpanBatchView => ({
    parentCheck: fromHex(safe.hash).subarray(0, 20),
    l1OriginCheck: fromHex(L1[0]!.hash).subarray(0, 20),
    batches: [
      { timestamp: 1012, epochNum: 100, transactions: [] },
      { timestamp: 1014, epochNum: 100, transactions: [] },
    ],
    ...o,
  });
  const check = (s: SpanBatchView, l2 = noL2) => checkSpanBatchPrefix(cfg, L1, safe, s, L1[1]!, l2);

  it('accepts a span starting after the safe head', async () => expect((await check(span())).validity).toBe('accept'));
  it('drops gaps (Holocene) and wrong checks; past spans are past', async () => {
    expect((await check(span({ batches: [{ timestamp: 1014, epochNum: 100, transactions: [] }] }))).validity).toBe(
      'drop',
    );
    expect((await check(span({ parentCheck: new Uint8Array(20) }))).validity).toBe('drop');
    expect((await check(span({ l1OriginCheck: new Uint8Array(20) }))).validity).toBe('drop');
    expect((await check(span({ batches: [{ timestamp: 1010, epochNum: 100, transactions: [] }] }))).validity).toBe(
      'past',
    );
  });
  it('checks an overlapping span against the safe block it builds on', async () => {
    const parent: L2BlockRef = { ...safe, number: 4, hash: h(0x2004), timestamp: 1008 };
    const l2: SafeBlockFetcher = {
      ...noL2,
      l2BlockRefByNumber: async (n) => (n === 4 ? parent : Promise.reject(new Error('x'))),
    };
    const overlapping = span({
      parentCheck: fromHex(parent.hash).subarray(0, 20),
      batches: [
        { timestamp: 1010, epochNum: 100, transactions: [] },
        { timestamp: 1012, epochNum: 100, transactions: [] },
      ],
    });
    expect((await check(overlapping, l2)).validity).toBe('accept');
    expect((await check(overlapping)).validity).toBe('undecided');
    expect((await check({ ...overlapping, parentCheck: fromHex(safe.hash).subarray(0, 20) }, l2)).validity).toBe(
      'drop',
    );
  });
});
