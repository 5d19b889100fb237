// L1 origin selection as table tests over the pure rule (epoch change, drift, confirmations, reorgs), the
// deposit-only rule, the cached selector against a conf-depth L1, and the --sequencer.l1-confs startup check.
import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { withConfDepth } from '../../../../../src/main/node/l1/confDepth.js';
import type { L1Source } from '../../../../../src/main/node/l1/interface.js';
import { checkSequencerConfDepth } from '../../../../../src/main/node/sequencer/config.js';
import { chooseOrigin, noTxPoolFor, OriginSelector } from '../../../../../src/main/node/sequencer/originSelector.js';
import type { L1BlockRef, L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { l1Hash, testConfig } from '../engine/fakeEngine.js';

// block_time 2, max_sequencer_drift 600 (pre-Fjord); L1 blocks 12 s apart from time 1000.
const cfg = testConfig();
const fjordCfg = testConfig({ fjord_time: 0 });
const l1 = (n: number, fork = 0): L1BlockRef => ({
  hash: l1Hash(n, fork),
  number: n,
  parentHash: l1Hash(n - 1),
  timestamp: 1000 + 12 * n,
});
const l2 = (time: number, origin: L1BlockRef): L2BlockRef => ({
  hash: `0x${'aa'.repeat(32)}`,
  number: 5,
  parentHash: `0x${'bb'.repeat(32)}`,
  timestamp: time,
  l1origin: { hash: origin.hash, number: origin.number },
  sequenceNumber: 0,
});

describe('chooseOrigin', () => {
  const cur = l1(5); // time 1060
  const next = l1(6); // time 1072
  const cases: Array<{ name: string; head: number; next?: L1BlockRef; eager?: boolean; c?: typeof cfg; want: string }> =
    [
      {
        name: 'stays on the origin while the next L1 block is newer than the next L2 time',
        head: 1068,
        next,
        want: 'cur',
      },
      { name: 'moves to the next origin when its time equals the next L2 time', head: 1070, next, want: 'next' },
      { name: 'moves to the next origin when the next L2 time is past it', head: 1080, next, want: 'next' },
      { name: 'stays on the origin when the next is not known (confs) and within drift', head: 1070, want: 'cur' },
      { name: 'stays exactly at the drift limit (600 s)', head: 1060 + 600 - 2, want: 'cur' },
      { name: 'needs the next origin once past the drift', head: 1060 + 600, want: 'need-next' },
      { name: 'past the drift, adopts the next origin when known', head: 1060 + 600, next, want: 'next' },
      { name: 'Fjord drift is 1800 s: 1000 s past is fine', head: 1060 + 1000, c: fjordCfg, want: 'cur' },
      { name: 'Fjord drift exceeded', head: 1060 + 1800, c: fjordCfg, want: 'need-next' },
      { name: 'recover mode asks for the next origin eagerly', head: 1062, eager: true, want: 'need-next' },
      { name: 'recover mode with the next known: still no future origin', head: 1062, next, eager: true, want: 'cur' },
    ];
  for (const t of cases) {
    it(t.name, () => {
      const r = chooseOrigin(t.c ?? cfg, l2(t.head, cur), cur, t.next, t.eager ?? false);
      if (t.want === 'need-next') expect(r.kind).toBe('need-next');
      else expect(r).toEqual({ kind: 'origin', origin: t.want === 'cur' ? cur : next });
    });
  }

  it('reports a head whose origin is not the current one, and a next origin on another fork', () => {
    expect(chooseOrigin(cfg, l2(1070, l1(5, 1)), cur, next, false).kind).toBe('inconsistent');
    const orphan = { ...l1(6), parentHash: l1Hash(5, 1) };
    expect(chooseOrigin(cfg, l2(1070, cur), cur, orphan, false).kind).toBe('inconsistent');
  });
});

describe('noTxPoolFor', () => {
  it('allows the pool within the drift, refuses it past the drift, in recovery and in upgrade blocks', () => {
    const o = l1(5);
    expect(noTxPoolFor(cfg, o.timestamp + 600, o, false)).toBe(false);
    expect(noTxPoolFor(cfg, o.timestamp + 602, o, false)).toBe(true);
    expect(noTxPoolFor(cfg, o.timestamp + 2, o, true)).toBe(true);
    const up = testConfig({ fjord_time: 2000 });
    expect(noTxPoolFor(up, 2000, l1(83), false)).toBe(true);
    expect(noTxPoolFor(up, 2002, l1(83), false)).toBe(false);
    // Interop's activation block takes no pool transactions either (interop/derivation.md "Activation Block").
    const interop = testConfig({
      ecotone_time: 0,
      fjord_time: 0,
      granite_time: 0,
      holocene_time: 0,
      isthmus_time: 0,
      jovian_time: 0,
      interop_time: 2000,
    });
    expect(noTxPoolFor(interop, 2000, l1(83), false)).toBe(true);
    expect(noTxPoolFor(interop, 2002, l1(83), false)).toBe(false);
  });
});

function fakeL1(headNumber: { n: number }): L1Source {
  const byNum = (n: number) => {
    if (n > headNumber.n) throw new TernError('L1_NOT_FOUND', `no L1 block ${n}`, { severity: 'temporary' });
    return l1(n);
  };
  const notUsed = () => Promise.reject(new Error('not used'));
  return {
    blockRefByLabel: async () => l1(headNumber.n) as never,
    blockRefByNumber: async (n) => byNum(n) as never,
    blockRefByHash: async (h) => {
      for (let n = 0; n <= headNumber.n; n++) if (l1(n).hash === h) return l1(n) as never;
      throw new TernError('L1_NOT_FOUND', `no L1 block ${h}`, { severity: 'temporary' });
    },
    infoByHash: notUsed,
    infoAndTxsByHash: notUsed,
    fetchReceipts: notUsed,
  };
}

describe('OriginSelector', () => {
  it('sees the next origin only once it is --sequencer.l1-confs deep', async () => {
    const head = { n: 7 };
    const src = withConfDepth(fakeL1(head), 2, () => l1(head.n) as never);
    const sel = new OriginSelector(cfg, src as never);
    const cur = l1(5);
    // L1 6 is 1 block behind the head 7: hidden with 2 confirmations.
    head.n = 7;
    expect((await sel.findL1Origin(l2(1080, cur))).number).toBe(5);
    head.n = 8;
    expect((await sel.findL1Origin(l2(1080, cur))).number).toBe(6);
  });

  it('throws a temporary error past the drift without a next origin, a reset error on inconsistency', async () => {
    const head = { n: 5 };
    const sel = new OriginSelector(cfg, fakeL1(head) as never);
    await expect(sel.findL1Origin(l2(1060 + 600, l1(5)))).rejects.toMatchObject({
      code: 'SEQUENCER_NEXT_ORIGIN_REQUIRED',
      severity: 'temporary',
    });
    head.n = 6;
    const orphanHead = l2(1062, l1(5));
    const sel2 = new OriginSelector(cfg, {
      blockRefByHash: async () => ({ ...l1(5), hash: l1Hash(5, 1) }),
      blockRefByNumber: async () => l1(6),
    });
    await expect(sel2.findL1Origin(orphanHead)).rejects.toMatchObject({
      code: 'SEQUENCER_ORIGIN_INCONSISTENT',
      severity: 'reset',
    });
  });

  it('recover mode adopts each next origin as soon as allowed and falls back at the confirmed tip', async () => {
    const head = { n: 5 };
    const sel = new OriginSelector(cfg, fakeL1(head) as never, { recover: true });
    expect((await sel.findL1Origin(l2(1062, l1(5)))).number).toBe(5); // at the tip: normal rule
  });
});

describe('--sequencer.l1-confs check', () => {
  it('accepts up to the drift in 12 s L1 blocks and refuses more, naming the limit', () => {
    expect(() => checkSequencerConfDepth(fjordCfg, 150, 5000)).not.toThrow();
    expect(() => checkSequencerConfDepth(fjordCfg, 151, 5000)).toThrow(
      /exceeds the sequencer drift of 1800 s \(150 blocks\).*at most 150/,
    );
    expect(() => checkSequencerConfDepth(cfg, 50, 5000)).not.toThrow();
    expect(() => checkSequencerConfDepth(cfg, 51, 5000)).toThrow(/600 s \(50 blocks\)/);
  });
});
