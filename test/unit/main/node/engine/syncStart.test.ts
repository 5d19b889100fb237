// The sync start walk over scripted chains: one L2 block per L1 block (each first in its epoch), L1 reorgs that
// strand the unsafe tip, L2 ahead of L1, a finalized head that stops the walk, and the wrong genesis.
import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { engineNotFound, type L2Label } from '../../../../../src/main/node/engine/interface.js';
import { findL2Heads, type SyncStartL1, type SyncStartL2 } from '../../../../../src/main/node/engine/syncStart.js';
import type { L1BlockRef, L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { GENESIS_L2, l1Hash, testConfig } from './fakeEngine.js';

const cfg = testConfig(); // seq_window_size 4
const l2Hash = (n: number, tag = '') =>
  n === 0 ? GENESIS_L2 : `0x${(`${tag}a`.repeat(64).slice(0, 60) + n.toString(16).padStart(4, '0')).slice(-64)}`;

/** L1 0..head; blocks above `forkAt` on fork `fork`. */
function l1Chain(head: number, forkAt = Number.POSITIVE_INFINITY, fork = 1): SyncStartL1 & { calls: number } {
  const hashOf = (n: number) => l1Hash(n, n >= forkAt ? fork : 0);
  const ref = (n: number): L1BlockRef => ({
    hash: hashOf(n),
    number: n,
    parentHash: n === 0 ? `0x${'00'.repeat(32)}` : hashOf(n - 1),
    timestamp: n * 12,
  });
  const chain = {
    calls: 0,
    async blockRefByNumber(n: number) {
      chain.calls++;
      if (n > head) throw new TernError('L1_NOT_FOUND', `L1 block ${n} not found`, { severity: 'temporary' });
      return ref(n);
    },
    async blockRefByHash(h: string) {
      chain.calls++;
      for (let n = 0; n <= head; n++) if (ref(n).hash === h) return ref(n);
      throw new TernError('L1_NOT_FOUND', 'not found', { severity: 'temporary' });
    },
  };
  return chain;
}

/** L2 0..tip, block n with L1 origin n (origins of blocks ≥ origForkAt on L1 fork 0 regardless). */
function l2Chain(tip: number, labels: { safe: number; finalized: number }, originOf = (n: number) => n): SyncStartL2 {
  const refs = new Map<string, L2BlockRef>();
  const byNum: L2BlockRef[] = [];
  for (let n = 0; n <= tip; n++) {
    const o = originOf(n);
    const prevO = n === 0 ? -1 : originOf(n - 1);
    const seq = o === prevO ? (byNum[n - 1]?.sequenceNumber ?? 0) + 1 : 0;
    const r: L2BlockRef = {
      hash: l2Hash(n),
      number: n,
      parentHash: n === 0 ? `0x${'00'.repeat(32)}` : l2Hash(n - 1),
      timestamp: 1000 + 2 * n,
      l1origin: { hash: l1Hash(o), number: o },
      sequenceNumber: seq,
    };
    refs.set(r.hash, r);
    byNum.push(r);
  }
  const at = (n: number) => byNum[n] as L2BlockRef;
  return {
    async l2BlockRefByLabel(label: L2Label) {
      return label === 'latest' ? at(tip) : label === 'safe' ? at(labels.safe) : at(labels.finalized);
    },
    async l2BlockRefByHash(h: string) {
      const r = refs.get(h);
      if (r === undefined) throw engineNotFound(h);
      return r;
    },
  };
}

describe('findL2Heads', () => {
  it('keeps the unsafe head and puts safe a sequencing window behind the highest canonical origin', async () => {
    const r = await findL2Heads(cfg, l1Chain(20), l2Chain(20, { safe: 15, finalized: 0 }));
    expect(r.unsafe.number).toBe(20);
    // block 15 is the first at or below the engine's safe head with origin + 4 < 20; its parent is safe.
    expect(r.safe.number).toBe(14);
    expect(r.finalized.number).toBe(0);
  });

  it('drops unsafe blocks whose L1 origins were reorged out', async () => {
    const r = await findL2Heads(cfg, l1Chain(20, 18), l2Chain(20, { safe: 15, finalized: 0 }));
    expect(r.unsafe.number).toBe(17);
    expect(r.safe.number).toBe(11);
  });

  it('keeps unsafe blocks whose L1 origin is ahead of the L1 view (plausible)', async () => {
    const r = await findL2Heads(cfg, l1Chain(20), l2Chain(22, { safe: 15, finalized: 0 }));
    expect(r.unsafe.number).toBe(22);
    expect(r.safe.number).toBe(14);
  });

  it('stops at the finalized head', async () => {
    const r = await findL2Heads(cfg, l1Chain(20), l2Chain(20, { safe: 15, finalized: 15 }));
    expect(r.safe.number).toBe(15);
    expect(r.finalized.number).toBe(15);
  });

  it('treats a multi-block epoch as one: safe lands on the last block of an earlier epoch', async () => {
    // two L2 blocks per L1 block: block n has origin floor(n / 2)
    const r = await findL2Heads(
      cfg,
      l1Chain(20),
      l2Chain(40, { safe: 30, finalized: 0 }, (n) => Math.floor(n / 2)),
    );
    expect(r.unsafe.number).toBe(40);
    expect(r.safe.l1origin.number + cfg.seqWindowSize).toBeLessThan(20);
    expect(r.safe.number % 2).toBe(1); // last block of its epoch
    expect(r.safe.number).toBe(29);
  });

  it('refuses an engine on another L2 genesis', async () => {
    const l2 = l2Chain(3, { safe: 0, finalized: 0 });
    const wrong: SyncStartL2 = {
      l2BlockRefByLabel: l2.l2BlockRefByLabel,
      async l2BlockRefByHash(h) {
        const r = await l2.l2BlockRefByHash(h);
        return r.number === 0 ? { ...r, hash: `0x${'99'.repeat(32)}` } : r;
      },
    };
    const err = await findL2Heads(cfg, l1Chain(3), {
      ...wrong,
      async l2BlockRefByLabel(label) {
        const r = await l2.l2BlockRefByLabel(label);
        return r.number === 0 ? { ...r, hash: `0x${'99'.repeat(32)}` } : r;
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TernError);
    expect((err as TernError).severity).toBe('critical');
  });
});
