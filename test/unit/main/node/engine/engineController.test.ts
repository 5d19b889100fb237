// The engine controller against an in-memory engine: inserting derived blocks, consolidating matching unsafe
// blocks without re-execution, replacing (reorging) unsafe blocks that disagree, invalid payloads, stale attributes.
import { beforeEach, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { AttributesWithParent, L1BlockRef } from '../../../../../src/main/node/derive/types.js';
import { EngineController } from '../../../../../src/main/node/engine/engineController.js';
import type { L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { attrs, FakeEngine, GENESIS_L1, GENESIS_L2, INVALID_TX, l1Hash, testConfig } from './fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const cfg = testConfig();
const l1 = (n: number): L1BlockRef => ({
  hash: l1Hash(n),
  number: n,
  parentHash: l1Hash(n - 1),
  timestamp: 1000 + n * 12,
});
const TX_A = Uint8Array.of(0x02, 0xaa);
const TX_B = Uint8Array.of(0x02, 0xbb);

function derived(
  parent: L2BlockRef,
  txs: Uint8Array[] = [],
  isLastInSpan = true,
  l1Number = 0,
  seq?: number,
): AttributesWithParent {
  return {
    attributes: attrs(cfg, parent, l1Number, seq ?? parent.sequenceNumber + 1, txs),
    parent,
    derivedFrom: l1(1),
    isLastInSpan,
  };
}

describe('EngineController', () => {
  let engine: FakeEngine;
  let ctrl: EngineController;
  let genesis: L2BlockRef;

  beforeEach(async () => {
    engine = new FakeEngine(cfg);
    ctrl = new EngineController(cfg, engine, { logger });
    genesis = await engine.l2BlockRefByHash(GENESIS_L2);
    expect(genesis.l1origin.hash).toBe(GENESIS_L1);
    await ctrl.reset({ unsafe: genesis, safe: genesis, finalized: genesis });
    engine.calls.length = 0;
  });

  it('inserts derived attributes through FCU(attrs), getPayload, newPayload, FCU and makes the block safe', async () => {
    const out = await ctrl.processAttributes(derived(genesis, [TX_A]));
    expect(out.kind).toBe('inserted');
    expect(engine.calls).toEqual(['fcu+attrs', 'getPayload', 'newPayload', 'fcu']);
    const h = ctrl.heads;
    expect(h.unsafe.number).toBe(1);
    expect(h.safe.hash).toBe(h.unsafe.hash);
    expect(h.pendingSafe.hash).toBe(h.unsafe.hash);
    expect(h.unsafe.l1origin).toEqual({ hash: GENESIS_L1, number: 0 });
    expect(h.unsafe.sequenceNumber).toBe(1);
    expect(engine.head).toBe(h.unsafe.hash);
    expect(engine.safe).toBe(h.unsafe.hash);
  });

  it('keeps the safe head back until the last block of a span batch', async () => {
    await ctrl.processAttributes(derived(genesis, [], false));
    const first = ctrl.heads.pendingSafe;
    expect(first.number).toBe(1);
    expect(ctrl.heads.safe.number).toBe(0);
    await ctrl.processAttributes(derived(first, [], true));
    expect(ctrl.heads.safe.number).toBe(2);
    expect(engine.safe).toBe(ctrl.heads.safe.hash);
  });

  it('consolidates an unsafe block that matches the attributes, without building it again', async () => {
    const a = derived(genesis, [TX_A]);
    const built = await ctrl.buildBlock(genesis, a.attributes, { safe: false, derived: false });
    expect(built.ok).toBe(true);
    expect(ctrl.heads.safe.number).toBe(0);
    engine.calls.length = 0;
    const out = await ctrl.processAttributes(a);
    expect(out).toMatchObject({ kind: 'consolidated', safe: true });
    expect(engine.calls).toEqual(['fcu']);
    expect(ctrl.heads.safe.hash).toBe(built.ok ? built.ref.hash : '');
    expect(ctrl.heads.unsafe.hash).toBe(ctrl.heads.safe.hash);
  });

  it('replaces an unsafe block that does not match, reorging out the unsafe chain above it', async () => {
    let parent = genesis;
    const unsafe: L2BlockRef[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await ctrl.buildBlock(parent, attrs(cfg, parent, 0, i + 1, [TX_A]), { safe: false, derived: false });
      if (!r.ok) throw new Error(r.reason);
      unsafe.push(r.ref);
      parent = r.ref;
    }
    expect(ctrl.heads.unsafe.number).toBe(3);
    const out = await ctrl.processAttributes(derived(genesis, [TX_B]));
    expect(out).toMatchObject({ kind: 'inserted', reorgedUnsafe: true });
    const h = ctrl.heads;
    expect(h.unsafe.number).toBe(1);
    expect(h.unsafe.hash).not.toBe(unsafe[0]?.hash);
    expect(h.safe.hash).toBe(h.unsafe.hash);
    expect(engine.canonical().get(1)).toBe(h.unsafe.hash);
    expect(engine.canonical().has(2)).toBe(false);
  });

  it('reports an invalid payload and leaves the heads alone', async () => {
    const before = ctrl.heads;
    const out = await ctrl.processAttributes(derived(genesis, [INVALID_TX]));
    expect(out.kind).toBe('invalid');
    expect(ctrl.heads).toEqual(before);
  });

  it('drops attributes older than the pending safe head and asks for a reset on a different parent', async () => {
    await ctrl.processAttributes(derived(genesis));
    expect(await ctrl.processAttributes(derived(genesis))).toMatchObject({ kind: 'dropped' });
    const stranger: L2BlockRef = { ...ctrl.heads.safe, hash: `0x${'77'.repeat(32)}` };
    const err = await ctrl.processAttributes(derived(stranger)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TernError);
    expect((err as TernError).severity).toBe('reset');
  });

  it('finalizes forward only and never past the safe head', async () => {
    await ctrl.processAttributes(derived(genesis));
    const one = ctrl.heads.safe;
    await ctrl.finalize(one);
    expect(ctrl.heads.finalized.hash).toBe(one.hash);
    expect(engine.finalized).toBe(one.hash);
    await ctrl.finalize(genesis);
    expect(ctrl.heads.finalized.hash).toBe(one.hash);
    const ahead: L2BlockRef = { ...one, number: 5 };
    await expect(ctrl.finalize(ahead)).rejects.toThrow(/past the safe head/);
  });
});
