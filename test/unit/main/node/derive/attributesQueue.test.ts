import { describe, expect, it } from 'vitest';
import { type AttributesPreparer, AttributesQueue } from '../../../../../src/main/node/derive/attributesQueue.js';
import type { NextBatch, SingularBatchProvider } from '../../../../../src/main/node/derive/batchQueue.js';
import type { BlockId, L1BlockRef, L2BlockRef, PayloadAttributes } from '../../../../../src/main/node/derive/types.js';
import type { SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';
import { batch, L1, l2Genesis, tx } from './batchHarness.js';
import { rollupConfig } from './helpers.js';

const cfg = rollupConfig({ regolith: 0, canyon: 0 });
const genesis = l2Genesis(cfg);
const deposit = (n: number) => Uint8Array.of(0x7e, n);

class Provider implements SingularBatchProvider {
  queue: NextBatch[] = [];
  flushes = 0;
  asked: L2BlockRef[] = [];
  origin(): L1BlockRef {
    return L1(3);
  }
  async nextBatch(parent: L2BlockRef): Promise<NextBatch | undefined> {
    this.asked.push(parent);
    return this.queue.shift();
  }
  flushChannel(): void {
    this.flushes++;
  }
  reset(): void {}
}

class Builder implements AttributesPreparer {
  calls: Array<{ parent: L2BlockRef; epoch: BlockId }> = [];
  fail = 0;
  async prepare(parent: L2BlockRef, epoch: BlockId): Promise<PayloadAttributes> {
    this.calls.push({ parent, epoch });
    if (this.fail > 0) {
      this.fail--;
      throw Object.assign(new Error('L1 down'), { code: 'L1_RPC', severity: 'temporary' });
    }
    return {
      timestamp: parent.timestamp + cfg.blockTime,
      prevRandao: new Uint8Array(32),
      suggestedFeeRecipient: '0x4200000000000000000000000000000000000011',
      transactions: [deposit(1), deposit(2)],
      noTxPool: true,
      gasLimit: 30_000_000n,
    };
  }
}

function setup() {
  const p = new Provider();
  const b = new Builder();
  return { p, b, q: new AttributesQueue(cfg, b, p) };
}

describe('attributes queue', () => {
  it('builds attributes from the builder then appends the batch transactions', async () => {
    const { p, b, q } = setup();
    const sb = batch(genesis, 0, [tx(1), tx(2)]);
    p.queue.push({ batch: sb, last: false });
    const a = await q.nextAttributes(genesis);
    expect(a?.attributes.transactions).toEqual([deposit(1), deposit(2), tx(1), tx(2)]);
    expect(a?.attributes.noTxPool).toBe(true);
    expect(a?.parent).toBe(genesis);
    expect(a?.derivedFrom).toEqual(L1(3));
    expect(a?.isLastInSpan).toBe(false);
    expect(b.calls).toEqual([{ parent: genesis, epoch: { number: 0, hash: L1(0).hash } }]);
    expect(await q.nextAttributes(genesis)).toBeUndefined();
  });

  it('keeps the batch across a temporary builder error', async () => {
    const { p, b, q } = setup();
    p.queue.push({ batch: batch(genesis, 0, [tx(5)]), last: true });
    b.fail = 1;
    await expect(q.nextAttributes(genesis)).rejects.toMatchObject({ severity: 'temporary' });
    const a = await q.nextAttributes(genesis);
    expect(a?.attributes.transactions.slice(2)).toEqual([tx(5)]);
    expect(p.asked.length).toBe(1);
  });

  it('a batch that does not fit the safe head is a reset error', async () => {
    const { p, q } = setup();
    p.queue.push({ batch: { ...batch(genesis, 0), parentHash: new Uint8Array(32) } as SingularBatch, last: true });
    await expect(q.nextAttributes(genesis)).rejects.toMatchObject({ code: 'ATTRIBUTES_BAD_PARENT', severity: 'reset' });
    const r = setup();
    r.p.queue.push({ batch: batch(genesis, 0, [], { timestamp: 1004 }), last: true });
    await expect(r.q.nextAttributes(genesis)).rejects.toMatchObject({ code: 'ATTRIBUTES_BAD_TIME', severity: 'reset' });
  });

  it('deposits-only replacement keeps the deposits and flushes the channel', async () => {
    const { p, q } = setup();
    p.queue.push({ batch: batch(genesis, 0, [tx(1)]), last: false });
    const a = await q.nextAttributes(genesis);
    const d = q.depositsOnlyAttributes(genesis);
    expect(d.attributes.transactions).toEqual([deposit(1), deposit(2)]);
    expect(d.attributes.timestamp).toBe(a?.attributes.timestamp);
    expect(d.parent).toBe(genesis);
    expect(p.flushes).toBe(1);
    expect(() => q.depositsOnlyAttributes({ hash: `0x${'01'.repeat(32)}`, number: 0 })).toThrow(
      expect.objectContaining({ code: 'DEPOSITS_ONLY_MISMATCH' }),
    );
    q.reset();
    expect(() => q.depositsOnlyAttributes(genesis)).toThrow();
  });
});
