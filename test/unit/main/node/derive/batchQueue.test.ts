import { describe, expect, it } from 'vitest';
import { BatchQueue } from '../../../../../src/main/node/derive/batchQueue.js';
import { fromHex, type L2BlockRef, toHex } from '../../../../../src/main/node/derive/types.js';
import type { RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import type { SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';
import {
  batch,
  ChainFetcher,
  child,
  consecutiveBatches,
  L1,
  l2Genesis,
  RecordingDrops,
  run,
  S,
  ScriptedBatches,
  spanOf,
  tx,
} from './batchHarness.js';
import { rollupConfig } from './helpers.js';

const cfg: RollupConfig = { ...rollupConfig({ regolith: 0, canyon: 0, delta: 0 }), seqWindowSize: 4 };
const genesis = l2Genesis(cfg);

function setup(c: RollupConfig = cfg, l2 = new ChainFetcher()) {
  const drops = new RecordingDrops();
  const src = new ScriptedBatches(L1(0));
  const bq = new BatchQueue(c, src, l2, { drops });
  bq.reset(L1(0));
  return { src, bq, drops };
}

const summary = (out: Array<{ batch: SingularBatch; last: boolean; origin: number }>) =>
  out.map((d) => ({ t: d.batch.timestamp, epoch: d.batch.epochNum, txs: d.batch.transactions.length, last: d.last }));

describe('batch queue (before Holocene)', () => {
  it('returns batches in order as they arrive, epoch by epoch', async () => {
    const bs = consecutiveBatches(genesis, [0, 0, 0, 0, 0, 1, 1]);
    const { src, bq, drops } = setup();
    src.at(1, bs.slice(0, 5).map(S));
    src.at(2, bs.slice(5).map(S));
    const { out } = await run(bq, src, genesis, 2);
    expect(out.map((d) => d.batch)).toEqual(bs.map((b) => ({ ...b })));
    expect(out.map((d) => d.origin)).toEqual([1, 1, 1, 1, 1, 2, 2]);
    expect(out.every((d) => d.last)).toBe(true);
    expect(drops.reasons).toEqual([]);
  });

  it('keeps future batches until their parent is there', async () => {
    const bs = consecutiveBatches(genesis, [0, 0, 0]);
    const { src, bq } = setup();
    src.at(1, [S(bs[2] as SingularBatch), S(bs[1] as SingularBatch)]);
    src.at(2, [S(bs[0] as SingularBatch)]);
    const { out } = await run(bq, src, genesis, 2);
    expect(out.map((d) => d.batch.timestamp)).toEqual([1002, 1004, 1006]);
    expect(out.map((d) => d.origin)).toEqual([2, 2, 2]);
  });

  it('drops invalid batches with a reason and takes the valid one', async () => {
    const [b1] = consecutiveBatches(genesis, [0]) as [SingularBatch];
    const { src, bq, drops } = setup();
    src.at(1, [
      S({ ...b1, parentHash: new Uint8Array(32) }), // wrong parent
      S({ ...b1, epochHash: fromHex(L1(7).hash) }), // epoch hash not canonical
      S({ ...b1, timestamp: 1000 }), // not after the safe head
      S({ ...b1, epochNum: 2, epochHash: fromHex(L1(2).hash) }), // skips an epoch
      S({ ...b1, transactions: [Uint8Array.of(0x7e, 1)] }), // a deposit
      S({ ...b1, transactions: [new Uint8Array(0)] }), // an empty tx
      S(b1),
    ]);
    const { out } = await run(bq, src, genesis, 1);
    expect(out.map((d) => d.batch)).toEqual([{ ...b1 }]);
    expect(drops.reasons).toEqual([
      'parent hash does not match the safe head',
      'epoch hash is not the canonical L1 block',
      'batch is older than the next block',
      'epoch advances more than one L1 block',
      'transaction 0 is a deposit',
      'transaction 0 is empty',
    ]);
  });

  it('derives empty batches only once the sequencing window has expired, then advances the epoch', async () => {
    const { src, bq } = setup();
    const { out } = await run(bq, src, genesis, 5);
    // Epoch 0 expires at L1 block 4 (once it has no more data): blocks until the next origin's time (1012)...
    // ...then epoch 1 expires at L1 block 5.
    expect(summary(out)).toEqual([
      ...[1002, 1004, 1006, 1008, 1010].map((t) => ({ t, epoch: 0, txs: 0, last: true })),
      ...[1012, 1014, 1016, 1018, 1020, 1022].map((t) => ({ t, epoch: 1, txs: 0, last: true })),
    ]);
    expect(out.map((d) => d.origin)).toEqual([4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5]);
    for (const d of out) expect(toHex(d.batch.epochHash)).toBe(L1(d.batch.epochNum).hash);
  });

  it('a batch that arrives within the window wins over empty batches', async () => {
    const [b1, b2] = consecutiveBatches(genesis, [0, 0]) as [SingularBatch, SingularBatch];
    const { src, bq } = setup();
    src.at(3, [S(b1)]);
    src.at(4, [S(b2)]);
    const { out } = await run(bq, src, genesis, 4);
    expect(summary(out).slice(0, 3)).toEqual([
      { t: 1002, epoch: 0, txs: 1, last: true },
      { t: 1004, epoch: 0, txs: 1, last: true },
      { t: 1006, epoch: 0, txs: 0, last: true },
    ]);
  });

  it('an empty batch past the drift may keep an epoch only while the next origin is in the future', async () => {
    const c: RollupConfig = { ...cfg, maxSequencerDrift: 4 };
    // Next L1 origin (1) has time 1012; with drift 4, epoch-0 blocks after 1004 must be empty.
    const bs = consecutiveBatches(genesis, [0, 0, 0], (i) => (i === 2 ? [tx(1)] : []));
    const { src, bq, drops } = setup(c);
    src.at(1, bs.map(S));
    const { out } = await run(bq, src, genesis, 1);
    expect(out.map((d) => d.batch.timestamp)).toEqual([1002, 1004]);
    expect(drops.reasons).toContain('sequencer drift exceeded with transactions');
  });

  it('splits a span batch into its blocks, the last one marked', async () => {
    const { src, bq } = setup();
    src.at(1, [spanOf(genesis, [{ epoch: 0, txs: [tx(1)] }, { epoch: 0 }, { epoch: 0, txs: [tx(2), tx(3)] }])]);
    const { out } = await run(bq, src, genesis, 1);
    expect(summary(out)).toEqual([
      { t: 1002, epoch: 0, txs: 1, last: false },
      { t: 1004, epoch: 0, txs: 0, last: false },
      { t: 1006, epoch: 0, txs: 2, last: true },
    ]);
  });

  it('drops a span batch before Delta (by its L1 origin) and one whose overlap differs from the safe chain', async () => {
    const pre: RollupConfig = { ...rollupConfig({ regolith: 0, canyon: 0, delta: 5000 }), seqWindowSize: 4 };
    const a = setup(pre);
    a.src.at(1, [spanOf(genesis, [{ epoch: 0 }])]);
    expect((await run(a.bq, a.src, genesis, 1)).out).toEqual([]);
    expect(a.drops.reasons).toEqual(['span batch with an L1 origin before Delta']);

    const l2 = new ChainFetcher();
    l2.add(genesis, []);
    const b = setup(cfg, l2);
    const bs = consecutiveBatches(genesis, [0, 0]);
    b.src.at(1, bs.map(S));
    // Overlaps blocks 1 and 2 with other transactions, then adds block 3.
    b.src.at(2, [spanOf(genesis, [{ epoch: 0, txs: [tx(9)] }, { epoch: 0, txs: [tx(1)] }, { epoch: 0 }])]);
    let head = genesis;
    for (const d of (await run(b.bq, b.src, genesis, 1)).out) {
      head = child(head, d.batch);
      l2.add(head, d.batch.transactions);
    }
    const { out } = await run(b.bq, b.src, head, 2);
    expect(out).toEqual([]);
    expect(b.drops.reasons).toEqual(['overlapped block 1 transaction 0 differs']);
  });

  it('accepts a span batch overlapping the safe chain exactly and returns only the new blocks', async () => {
    const l2 = new ChainFetcher();
    l2.add(genesis, []);
    const { src, bq } = setup(cfg, l2);
    const bs = consecutiveBatches(genesis, [0, 0]);
    src.at(1, bs.map(S));
    src.at(2, [
      spanOf(genesis, [
        { epoch: 0, txs: [tx(0)] },
        { epoch: 0, txs: [tx(1)] },
        { epoch: 0, txs: [tx(7)] },
      ]),
    ]);
    let head = genesis;
    for (const d of (await run(bq, src, genesis, 1)).out) {
      head = child(head, d.batch);
      l2.add(head, d.batch.transactions);
    }
    const { out } = await run(bq, src, head, 2);
    expect(summary(out)).toEqual([{ t: 1006, epoch: 0, txs: 1, last: true }]);
    expect(out[0]?.batch.transactions).toEqual([tx(7)]);
  });

  it('while the origin is behind the safe head origin, drains earlier stages without keeping batches', async () => {
    // Safe head at epoch 2 (as after a reset that went back a channel timeout).
    const head: L2BlockRef = {
      ...genesis,
      number: 13,
      hash: `0x${'cd'.repeat(32)}`,
      timestamp: 1026,
      l1origin: { number: 2, hash: L1(2).hash },
      sequenceNumber: 0,
    };
    const { src, bq } = setup();
    const next = batch(head, 2, [tx(1)]);
    src.at(1, [S(next)]); // would be valid for the safe head, but read before its origin: ignored
    src.at(3, [S({ ...next, transactions: [tx(3)] })]);
    const { out } = await run(bq, src, head, 3);
    expect(out.map((d) => d.batch.transactions)).toEqual([[tx(3)]]);
    expect(out[0]?.origin).toBe(3);
  });

  it('a buffered epoch that does not match the safe head origin is a reset error', async () => {
    const src = new ScriptedBatches(L1(5));
    const bq = new BatchQueue(cfg, src, new ChainFetcher());
    bq.reset(L1(5));
    await expect(bq.nextBatch(genesis)).rejects.toMatchObject({ code: 'BATCH_EPOCH_MISMATCH', severity: 'reset' });
  });

  it('drops the rest of a span when the engine did not take its previous block', async () => {
    const { src, bq } = setup();
    src.at(0, [spanOf(genesis, [{ epoch: 0, txs: [tx(1)] }, { epoch: 0 }, { epoch: 0 }])]);
    const first = await bq.nextBatch(genesis);
    expect(first?.last).toBe(false);
    // The head did not move (the block was rejected): the cached rest of the span no longer fits.
    const again = await bq.nextBatch(genesis);
    expect(again).toBeUndefined();
  });
});
