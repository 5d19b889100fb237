// The driver loop over a scripted derivation and an in-memory engine: blocks become safe and are recorded by L1
// block, L1 finality finalizes them, a reset-severity error resets derivation from the sync start, a critical one
// stops the loop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { StepResult } from '../../../../../src/main/node/derive/pipeline.js';
import type { AttributesWithParent, BlockId } from '../../../../../src/main/node/derive/types.js';
import { type Derivation, Driver } from '../../../../../src/main/node/driver/driver.js';
import { EngineController } from '../../../../../src/main/node/engine/engineController.js';
import { SafeDb } from '../../../../../src/main/node/safedb/safedb.js';
import type { L1BlockRef, L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { waitUntil } from '../../../../helpers/waitUntil.js';
import { attrs, FakeEngine, l1Hash, SyncingEngine, sequencerChain, testConfig } from '../engine/fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const cfg = testConfig();
const l1 = (n: number): L1BlockRef => ({
  hash: l1Hash(n),
  number: n,
  parentHash: l1Hash(n - 1),
  timestamp: 1000 + 12 * n,
});
const l1Source = { blockRefByNumber: async (n: number) => l1(n), blockRefByHash: async () => l1(0) };

/** Derives `target` blocks, one per step, each derived from L1 block (its number + 1); then EOF. */
class ScriptedDerivation implements Derivation {
  resets: number[] = [];
  failures: TernError[] = [];
  last: AttributesWithParent | undefined;
  constructor(private readonly target: number) {}
  async reset(safe: L2BlockRef) {
    this.resets.push(safe.number);
  }
  async step(safe: L2BlockRef): Promise<StepResult> {
    const f = this.failures.shift();
    if (f) throw f;
    if (safe.number >= this.target) return { kind: 'eof' };
    this.last = {
      attributes: attrs(cfg, safe, 0, safe.sequenceNumber + 1),
      parent: safe,
      derivedFrom: l1(safe.number + 1),
      isLastInSpan: true,
    };
    return { kind: 'attributes', attributes: this.last };
  }
  origin() {
    return l1(1);
  }
  depositsOnlyAttributes(_parent: BlockId): AttributesWithParent {
    return this.last as AttributesWithParent;
  }
}

const until = (cond: () => boolean, ms = 5000) => waitUntil(cond, { timeoutMs: ms, everyMs: 5 });

describe('Driver', () => {
  let dir: string;
  let safeDb: SafeDb;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tern-driver-'));
    safeDb = SafeDb.open(dir, { logger });
  });
  afterEach(async () => {
    await safeDb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function setup(derivation: Derivation, onCritical?: (e: TernError) => void) {
    const engine = new FakeEngine(cfg);
    const ctrl = new EngineController(cfg, engine, { logger });
    const driver = new Driver(
      cfg,
      { syncMode: 'consensus-layer', idlePollMs: 20, retryDelayMs: 5 },
      { l1: l1Source, derivation, engine: ctrl, safeDb },
      { logger, onCritical },
    );
    return { engine, ctrl, driver };
  }

  it('derives to the safe head, records it by L1 block and finalizes from L1 finality', async () => {
    const d = new ScriptedDerivation(3);
    const { ctrl, driver, engine } = setup(d);
    driver.start();
    await until(() => ctrl.initialized && ctrl.heads.safe.number === 3);
    await driver.runExclusive(async () => undefined); // the step that made block 3 safe has finished
    expect(d.resets).toEqual([0]);
    expect(engine.head).toBe(ctrl.heads.unsafe.hash);
    expect((await safeDb.safeHeadAtL1(1)).safeHead.number).toBe(1);
    expect((await safeDb.safeHeadAtL1(2)).safeHead.number).toBe(2);
    expect((await safeDb.safeHeadAtL1(9)).safeHead).toEqual({ hash: ctrl.heads.safe.hash, number: 3 });
    driver.onL1Head('finalized', l1(1));
    await until(() => ctrl.heads.finalized.number === 1);
    driver.onL1Head('finalized', l1(4));
    await until(() => ctrl.heads.finalized.number === 3);
    const s = driver.syncStatus();
    expect(s.finalizedL1?.number).toBe(4);
    expect(s.safeL2?.number).toBe(3);
    await driver.stop();
  });

  it('resets derivation from the sync start after a reset-severity error, and keeps going', async () => {
    const d = new ScriptedDerivation(2);
    d.failures.push(new TernError('L1_REORG', 'reorg', { severity: 'reset' }));
    const { ctrl, driver } = setup(d);
    const reasons: string[] = [];
    driver.onReset((reason) => reasons.push(reason));
    driver.start();
    await until(() => ctrl.initialized && ctrl.heads.safe.number === 2);
    expect(d.resets.length).toBe(2);
    // Reset listeners (interop's `reset` event) hear of the reset and why; the sync start is not a reset.
    expect(reasons).toEqual(['reorg']);
    await driver.stop();
  });

  it('retries temporary errors and stops on a critical one', async () => {
    const d = new ScriptedDerivation(5);
    d.failures.push(
      new TernError('L1_RPC', 'down', { severity: 'temporary' }),
      new TernError('BAD', 'broken', { severity: 'critical' }),
    );
    let critical: TernError | undefined;
    const { driver } = setup(d, (e) => {
      critical = e;
    });
    driver.start();
    await until(() => critical !== undefined);
    expect(critical?.code).toBe('BAD');
    expect(driver.stopError?.code).toBe('BAD');
    await driver.stop();
  });

  it('tells listeners when L1 is exhausted and when the origin moves, with the L2 block derivation is on', async () => {
    /** Derives nothing; moves its origin to L1 block 2 when told, then reports L1 exhausted again. */
    class Managed extends ScriptedDerivation {
      at = 1;
      pending = false;
      steps = 0;
      override async step(): Promise<StepResult> {
        this.steps++;
        if (!this.pending) return { kind: 'eof' };
        this.pending = false;
        this.at++;
        return { kind: 'progress' };
      }
      override origin() {
        return l1(this.at);
      }
    }
    const d = new Managed(0);
    // An idle wait of a minute: only wake() gets the next step in time.
    const engine = new FakeEngine(cfg);
    const ctrl = new EngineController(cfg, engine, { logger });
    const driver = new Driver(
      cfg,
      { syncMode: 'consensus-layer', idlePollMs: 60_000, retryDelayMs: 5 },
      { l1: l1Source, derivation: d, engine: ctrl, safeDb },
      { logger },
    );
    const seen: string[] = [];
    const off = driver.onDerivationL1((e) => seen.push(`${e.kind}:${e.origin.number}:${e.lastL2.number}`));
    driver.start();
    await until(() => seen.length === 1);
    expect(seen).toEqual(['exhausted:1:0']);
    const before = d.steps;
    d.pending = true;
    driver.wake();
    await until(() => seen.length === 3);
    expect(d.steps).toBeGreaterThan(before);
    expect(seen).toEqual(['exhausted:1:0', 'originAdvanced:2:0', 'exhausted:2:0']);
    off();
    d.pending = true;
    driver.wake();
    await until(() => d.at === 3);
    expect(seen).toHaveLength(3);
    await driver.stop();
  });

  it('execution-layer sync: derivation waits while the engine syncs, then continues after the synced block', async () => {
    const d = new ScriptedDerivation(8);
    const chain = await sequencerChain(cfg, 6);
    const engine = new SyncingEngine(cfg);
    const ctrl = new EngineController(cfg, engine, { logger, elSync: true });
    const driver = new Driver(
      cfg,
      { syncMode: 'execution-layer', idlePollMs: 20, retryDelayMs: 5 },
      { l1: l1Source, derivation: d, engine: ctrl, safeDb },
      { logger },
    );
    const steps: number[] = [];
    const step = d.step.bind(d);
    d.step = (safe) => {
      steps.push(safe.number);
      return step(safe);
    };
    driver.start();
    await until(() => ctrl.initialized);
    // Gossip hands the tip to the engine, which has nothing yet: SYNCING, and derivation does not step.
    await driver.runExclusive(() => ctrl.insertUnsafePayload(chain.payloads[4]!));
    await new Promise((r) => setTimeout(r, 60));
    expect(ctrl.engineSyncing).toBe(true);
    expect(steps).toEqual([]);
    expect(ctrl.heads.safe.number).toBe(0);
    // The engine synced from its peers; the next payload is VALID: EL sync done, derivation resumes after block 6.
    engine.syncFrom(chain.source, 5);
    await driver.runExclusive(() => ctrl.insertUnsafePayload(chain.payloads[5]!));
    await until(() => ctrl.heads.safe.number === 8);
    expect(d.resets.at(-1)).toBe(6);
    expect(steps[0]).toBe(6);
    await driver.stop();
  });
});
