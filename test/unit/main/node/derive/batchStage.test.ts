import { describe, expect, it } from 'vitest';
import { BatchMux, BatchStage } from '../../../../../src/main/node/derive/batchStage.js';
import type { RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import type { SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';
import {
  batch,
  ChainFetcher,
  child,
  consecutiveBatches,
  type Derived,
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

const forks = { regolith: 0, canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0 };
const cfg: RollupConfig = { ...rollupConfig({ ...forks, holocene: 0 }), seqWindowSize: 4 };
const genesis = l2Genesis(cfg);

function setup(l2 = new ChainFetcher()) {
  const drops = new RecordingDrops();
  const src = new ScriptedBatches(L1(0));
  const stage = new BatchStage(cfg, src, l2, { drops });
  stage.reset(L1(0));
  return { src, stage, drops };
}

const summary = (out: Derived[]) =>
  out.map((d) => ({
    t: d.batch.timestamp,
    epoch: d.batch.epochNum,
    txs: d.batch.transactions.map((x) => x[1]),
    last: d.last,
  }));

describe('batch stage (Holocene)', () => {
  it('takes batches in order', async () => {
    const bs = consecutiveBatches(genesis, [0, 0, 0]);
    const { src, stage, drops } = setup();
    src.at(1, bs.map(S));
    const { out } = await run(stage, src, genesis, 1);
    expect(out.map((d) => d.batch)).toEqual(bs.map((b) => ({ ...b })));
    expect(out.every((d) => d.last)).toBe(true);
    expect(drops.reasons).toEqual([]);
  });

  it('drops a future batch (no buffering) together with the rest of its channel', async () => {
    const [b1, b2, b3] = consecutiveBatches(genesis, [0, 0, 0]) as [SingularBatch, SingularBatch, SingularBatch];
    const { src, stage, drops } = setup();
    src.at(1, [S(b1), S(b3), S(b2)], [S({ ...b2, transactions: [tx(9)] })]);
    const { out } = await run(stage, src, genesis, 1);
    expect(summary(out)).toEqual([
      { t: 1002, epoch: 0, txs: [0], last: true },
      { t: 1004, epoch: 0, txs: [9], last: true },
    ]);
    expect(drops.reasons).toEqual(['future batch (Holocene forbids gaps)']);
    expect(src.flushes).toBe(1);
  });

  it('skips past batches without flushing', async () => {
    const [b1, b2] = consecutiveBatches(genesis, [0, 0]) as [SingularBatch, SingularBatch];
    const { src, stage, drops } = setup();
    src.at(1, [S(b1)]);
    src.at(2, [S(b1), S(b2)]);
    const { out } = await run(stage, src, genesis, 2);
    expect(out.map((d) => d.batch.timestamp)).toEqual([1002, 1004]);
    expect(drops.reasons).toEqual([]);
    expect(src.flushes).toBe(0);
  });

  it('an invalid batch drops its channel, the next channel goes on', async () => {
    const [b1, b2] = consecutiveBatches(genesis, [0, 0]) as [SingularBatch, SingularBatch];
    const { src, stage, drops } = setup();
    src.at(1, [S({ ...b1, parentHash: new Uint8Array(32) }), S(b1)], [S(b1), S(b2)]);
    const { out } = await run(stage, src, genesis, 1);
    expect(out.map((d) => d.batch.timestamp)).toEqual([1002, 1004]);
    expect(drops.reasons).toEqual(['parent hash does not match the safe head']);
    expect(src.flushes).toBe(1);
  });

  it('keeps the valid prefix of a span batch and drops the rest at the first invalid block', async () => {
    const { src, stage, drops } = setup();
    src.at(1, [
      spanOf(genesis, [
        { epoch: 0, txs: [tx(1)] },
        { epoch: 0, txs: [Uint8Array.of(0x7e, 0)] },
        { epoch: 0, txs: [tx(3)] },
      ]),
      S(batch(genesis, 0, [tx(8)])), // same channel: flushed
    ]);
    const { out, head } = await run(stage, src, genesis, 1);
    expect(summary(out)).toEqual([{ t: 1002, epoch: 0, txs: [1], last: false }]);
    expect(drops.reasons).toEqual(['transaction 0 is a deposit']);
    expect(src.flushes).toBe(1);
    // The next block comes from a later channel.
    src.at(2, [S(batch(head, 0, [tx(4)]))]);
    const more = await run(stage, src, head, 2);
    expect(summary(more.out)).toEqual([{ t: 1004, epoch: 0, txs: [4], last: true }]);
  });

  it('drops a span batch whose parent check fails, and with it the channel', async () => {
    const { src, stage, drops } = setup();
    src.at(
      1,
      [spanOf(genesis, [{ epoch: 0 }], { parentCheck: new Uint8Array(20) }), S(batch(genesis, 0))],
      [S(batch(genesis, 0, [tx(5)]))],
    );
    const { out } = await run(stage, src, genesis, 1);
    expect(drops.reasons).toEqual(['parent check does not match']);
    expect(summary(out)).toEqual([{ t: 1002, epoch: 0, txs: [5], last: true }]);
  });

  it('a span batch overlapping the safe chain continues after the safe head', async () => {
    const l2 = new ChainFetcher();
    l2.add(genesis, []);
    const { src, stage } = setup(l2);
    const bs = consecutiveBatches(genesis, [0, 0]);
    src.at(1, bs.map(S));
    src.at(2, [
      spanOf(genesis, [
        { epoch: 0, txs: [tx(0)] },
        { epoch: 0, txs: [tx(1)] },
        { epoch: 0, txs: [tx(2)] },
        { epoch: 0, txs: [tx(3)] },
      ]),
    ]);
    let head = genesis;
    for (const d of (await run(stage, src, genesis, 1)).out) {
      head = child(head, d.batch);
      l2.add(head, d.batch.transactions);
    }
    const { out } = await run(stage, src, head, 2);
    expect(summary(out)).toEqual([
      { t: 1006, epoch: 0, txs: [2], last: false },
      { t: 1008, epoch: 0, txs: [3], last: true },
    ]);
  });

  it('a whole past span batch is skipped', async () => {
    const { src, stage, drops } = setup();
    const bs = consecutiveBatches(genesis, [0, 0]);
    src.at(1, bs.map(S));
    src.at(2, [
      spanOf(genesis, [
        { epoch: 0, txs: [tx(0)] },
        { epoch: 0, txs: [tx(1)] },
      ]),
    ]);
    const { out } = await run(stage, src, genesis, 2);
    expect(out.map((d) => d.batch.timestamp)).toEqual([1002, 1004]);
    expect(drops.reasons).toEqual([]);
    expect(src.flushes).toBe(0);
  });

  it('derives empty batches once the sequencing window expires (not marked last)', async () => {
    const { src, stage } = setup();
    const { out } = await run(stage, src, genesis, 4);
    expect(summary(out)).toEqual([1002, 1004, 1006, 1008, 1010].map((t) => ({ t, epoch: 0, txs: [], last: false })));
    expect(out.every((d) => d.origin === 4)).toBe(true);
  });

  it('reads past batches in the safe head origin block without stalling', async () => {
    const [b1, b2] = consecutiveBatches(genesis, [0, 0]) as [SingularBatch, SingularBatch];
    const { src, stage } = setup();
    src.at(0, [S(b1)]); // at the safe head's own origin: only past batches can be there, drained
    src.at(1, [S(b1), S(b2)]);
    const { out } = await run(stage, src, genesis, 1);
    expect(out.map((d) => d.batch.timestamp)).toEqual([1002, 1004]);
    expect(out[0]?.origin).toBe(1);
  });
});

describe('batch mux', () => {
  it('switches from the queue to the stage at Holocene, keeping the L1 origins and dropping buffered batches', async () => {
    const c: RollupConfig = { ...rollupConfig({ ...forks, holocene: L1(2).timestamp }), seqWindowSize: 4 };
    const src = new ScriptedBatches(L1(0));
    const mux = new BatchMux(c, src, new ChainFetcher());
    mux.reset(L1(0));
    expect(mux.holocene).toBe(false);
    const [b1, b2, b3] = consecutiveBatches(genesis, [0, 0, 0]) as [SingularBatch, SingularBatch, SingularBatch];
    src.at(1, [S(b1), S(b3)]); // b3 is a future batch: buffered by the queue
    src.at(2, [S(b2)]);
    const first = await mux.nextBatch(genesis);
    expect(first).toBeUndefined();
    src.advance();
    const got = await mux.nextBatch(genesis);
    expect(got?.batch.timestamp).toBe(1002);
    let head = child(genesis, b1);
    expect(await mux.nextBatch(head)).toBeUndefined();
    src.advance();
    mux.activateHolocene();
    expect(mux.holocene).toBe(true);
    const { out } = await run(mux, src, head, 2);
    expect(out.map((d) => d.batch.timestamp)).toEqual([1004]);
    head = child(head, b2);
    // b3 was buffered by the queue and is gone.
    expect(await mux.nextBatch(head)).toBeUndefined();
  });

  it('resets into the stage when the base is past Holocene', () => {
    const src = new ScriptedBatches(L1(0));
    const mux = new BatchMux(cfg, src, new ChainFetcher());
    mux.reset(L1(0));
    expect(mux.holocene).toBe(true);
  });
});
