// EL sync in the engine controller (op-node's engine controller with --syncmode execution-layer), against a
// scripted execution engine that answers SYNCING for payloads whose parent it lacks, as geth/op-geth and tern-exec
// do, until it has synced the chain from its own peers.
import { beforeEach, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { toHex } from '../../../../../src/main/node/derive/types.js';
import { EngineController } from '../../../../../src/main/node/engine/engineController.js';
import { GENESIS_L2, SyncingEngine, sequencerChain, testConfig } from './fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const cfg = testConfig();

describe('EL sync (--syncmode execution-layer)', () => {
  let el: SyncingEngine;
  let ctrl: EngineController;
  let chain: Awaited<ReturnType<typeof sequencerChain>>;

  beforeEach(async () => {
    chain = await sequencerChain(cfg, 8);
    el = new SyncingEngine(cfg);
    ctrl = new EngineController(cfg, el, { logger, elSync: true });
    const genesis = await el.l2BlockRefByHash(GENESIS_L2);
    await ctrl.reset({ unsafe: genesis, safe: genesis, finalized: genesis });
    el.calls.length = 0;
  });

  it('waits while the engine answers SYNCING, then makes the first VALID block unsafe, safe and finalized', async () => {
    expect(ctrl.elSyncState).toBe('will-start');
    expect(ctrl.engineSyncing).toBe(true);
    const p5 = chain.payloads[4]!;
    // The gossiped tip: the engine lacks its parent, answers SYNCING to newPayload and to the forkchoice update.
    const ref5 = await ctrl.insertUnsafePayload(p5);
    expect(ctrl.elSyncState).toBe('started');
    expect(el.calls).toEqual(['newPayload', 'fcu']);
    expect(ctrl.heads.unsafe).toEqual(ref5);
    expect(ctrl.heads.safe.hash).toBe(GENESIS_L2);
    expect(ctrl.heads.finalized.hash).toBe(GENESIS_L2);
    expect(ctrl.engineSyncing).toBe(true);
    // The next one while still syncing: the same.
    await ctrl.insertUnsafePayload(chain.payloads[5]!);
    expect(ctrl.heads.unsafe.number).toBe(6);
    expect(ctrl.engineSyncing).toBe(true);
    // The engine syncs from its peers up to 6; block 7 then executes (VALID): EL sync is over.
    el.syncFrom(chain.source, 6);
    el.calls.length = 0;
    const ref7 = await ctrl.insertUnsafePayload(chain.payloads[6]!);
    expect(el.calls).toEqual(['newPayload', 'fcu']);
    expect(ctrl.elSyncState).toBe('finished');
    expect(ctrl.engineSyncing).toBe(false);
    expect(ctrl.heads).toEqual({ unsafe: ref7, pendingSafe: ref7, safe: ref7, finalized: ref7 });
    // The forkchoice sent made it safe and finalized in the engine too.
    expect([el.head, el.safe, el.finalized]).toEqual([ref7.hash, ref7.hash, ref7.hash]);
    // After EL sync, SYNCING is an error again (consensus-layer rules).
    await expect(
      ctrl.insertUnsafePayload({ ...chain.payloads[7]!, parentHash: new Uint8Array(32).fill(9) }),
    ).rejects.toMatchObject({ code: 'ENGINE_SYNCING' });
  });

  it('ends EL sync when the forkchoice update itself answers VALID (the engine synced to the head meanwhile)', async () => {
    const p5 = chain.payloads[4]!;
    // newPayload still SYNCING, but by the forkchoice update the engine has the block.
    const np = el.newPayload.bind(el);
    el.newPayload = async (p, r) => {
      const s = await np(p, r);
      el.syncFrom(chain.source, 5);
      return s;
    };
    const ref5 = await ctrl.insertUnsafePayload(p5);
    expect(ctrl.elSyncState).toBe('finished');
    expect(ctrl.heads.finalized).toEqual(ref5);
    // The labels went to the engine in a second forkchoice update.
    expect(el.calls).toEqual(['newPayload', 'fcu', 'fcu']);
    expect(el.finalized).toBe(ref5.hash);
  });

  it('skips EL sync when the engine already has a finalized block past genesis', async () => {
    el.syncFrom(chain.source, 4);
    const ref4 = await el.l2BlockRefByHash(toHex(chain.payloads[3]!.blockHash));
    await ctrl.reset({ unsafe: ref4, safe: ref4, finalized: ref4 });
    expect(el.finalized).toBe(ref4.hash);
    await ctrl.insertUnsafePayload(chain.payloads[4]!);
    expect(ctrl.elSyncState).toBe('finished');
    expect(ctrl.heads.unsafe.number).toBe(5);
    expect(ctrl.heads.safe.number).toBe(4);
  });

  it("never starts for the node's own sequenced blocks", async () => {
    el.syncFrom(chain.source, 0);
    await ctrl.insertUnsafePayload(chain.payloads[0]!, undefined, { local: true });
    expect(ctrl.elSyncState).toBe('finished');
    expect(ctrl.heads.unsafe.number).toBe(1);
    expect(ctrl.heads.finalized.hash).toBe(GENESIS_L2);
  });

  it('an INVALID payload is still an error during EL sync', async () => {
    el.newPayload = async () => ({ status: 'INVALID', latestValidHash: null, validationError: 'bad block' });
    const err = await ctrl.insertUnsafePayload(chain.payloads[4]!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TernError);
    expect((err as TernError).code).toBe('ENGINE_INVALID');
  });

  it('consensus-layer mode: SYNCING stays a temporary error, no EL sync', async () => {
    const cl = new EngineController(cfg, el, { logger });
    const genesis = await el.l2BlockRefByHash(GENESIS_L2);
    await cl.reset({ unsafe: genesis, safe: genesis, finalized: genesis });
    expect(cl.engineSyncing).toBe(false);
    await expect(cl.insertUnsafePayload(chain.payloads[4]!)).rejects.toMatchObject({ code: 'ENGINE_SYNCING' });
  });
});
