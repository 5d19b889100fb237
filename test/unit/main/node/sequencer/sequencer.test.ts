// The sequencer's build loop against the in-memory engine (engine tests' FakeEngine + the real EngineController)
// on a virtual clock: one block per slot, built from one block time before the slot and sealed just before it;
// origins advance with L1; engine rejections rebuild after a block time; --sequencer.max-safe-lag pauses; the
// conductor gates building and sees each payload before the engine does; stop/start keep the head.
import { afterEach, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { PayloadEnvelopeLike, SequencerConductor } from '../../../../../src/main/node/conductor/interface.js';
import type { PayloadAttributes } from '../../../../../src/main/node/derive/types.js';
import { EngineController } from '../../../../../src/main/node/engine/engineController.js';
import type {
  PayloadAttributes as EngineAttrs,
  ExecutionPayload,
  ForkchoiceState,
} from '../../../../../src/main/node/engine/interface.js';
import { OriginSelector } from '../../../../../src/main/node/sequencer/originSelector.js';
import { type Clock, Sequencer, type SequencerProviders } from '../../../../../src/main/node/sequencer/sequencer.js';
import type { L1BlockRef, L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { attrs, FakeEngine, GENESIS_L2, INVALID_TX, l1Hash, testConfig } from '../engine/fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const cfg = testConfig(); // block time 2 s, genesis L2 time 1000, L1 blocks every 12 s from 1000
const l1 = (n: number): L1BlockRef => ({
  hash: l1Hash(n),
  number: n,
  parentHash: l1Hash(n - 1),
  timestamp: 1000 + 12 * n,
});

/** Virtual time: sleeping advances the clock at once (only the sequencer sleeps on it). */
class VirtualClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.t += Math.max(0, ms);
    await new Promise((r) => setImmediate(r));
  }
}

class TimedEngine extends FakeEngine {
  readonly log: Array<{ call: string; at: number; number?: number; time?: number }> = [];
  constructor(readonly clock: Clock) {
    super(cfg);
  }
  override async forkchoiceUpdated(s: ForkchoiceState, a?: EngineAttrs) {
    if (a) this.log.push({ call: 'build', at: this.clock.now(), time: Number(a.timestamp) });
    return super.forkchoiceUpdated(s, a);
  }
  override async getPayload(id: Uint8Array) {
    const env = await super.getPayload(id);
    this.log.push({ call: 'getPayload', at: this.clock.now(), number: Number(env.executionPayload.blockNumber) });
    return env;
  }
  override async newPayload(p: ExecutionPayload, root?: Uint8Array) {
    this.log.push({ call: 'newPayload', at: this.clock.now(), number: Number(p.blockNumber) });
    return super.newPayload(p, root);
  }
}

const allL1 = {
  blockRefByHash: async (h: `0x${string}`) => {
    for (let n = 0; n < 1000; n++) if (l1Hash(n) === h) return l1(n);
    throw new TernError('L1_NOT_FOUND', 'no such L1 block', { severity: 'temporary' });
  },
  blockRefByNumber: async (n: number) => l1(n),
};

class Attrs {
  inject: Uint8Array[] = [];
  async prepare(parent: L2BlockRef, epoch: { number: number }): Promise<PayloadAttributes> {
    const seq = epoch.number === parent.l1origin.number ? parent.sequenceNumber + 1 : 0;
    const txs = this.inject;
    this.inject = [];
    return attrs(cfg, parent, epoch.number, seq, txs);
  }
}

let running: Sequencer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function setup(
  opts: {
    maxSafeLag?: number;
    stopped?: boolean;
    conductor?: SequencerConductor;
    startMs?: number;
    logger?: typeof logger;
  } = {},
) {
  const clock = new VirtualClock(opts.startMs ?? 1_000_500);
  const engine = new TimedEngine(clock);
  const ctrl = new EngineController(cfg, engine, { logger });
  const genesis = await engine.l2BlockRefByHash(GENESIS_L2);
  await ctrl.reset({ unsafe: genesis, safe: genesis, finalized: genesis });
  let inLock = 0;
  const lockLog: string[] = [];
  const attributes = new Attrs();
  const errors: string[] = [];
  const published: number[] = [];
  const providers: SequencerProviders = {
    engine: ctrl,
    origins: new OriginSelector(cfg, allL1),
    attributes,
    conductor: opts.conductor,
    exclusive: async (fn) => {
      inLock++;
      try {
        return await fn();
      } finally {
        inLock--;
      }
    },
    publish: async (env) => {
      published.push(Number(env.executionPayload.blockNumber));
    },
    state: {
      sequencerStarted: () => void lockLog.push('started'),
      sequencerStopped: () => void lockLog.push('stopped'),
    },
  };
  const origNew = engine.newPayload.bind(engine);
  engine.newPayload = async (p, r) => {
    if (inLock === 0) throw new Error('newPayload outside the driver lock');
    return origNew(p, r);
  };
  const seq = new Sequencer(
    cfg,
    { l1Confs: 4, maxSafeLag: opts.maxSafeLag ?? 0, stopped: opts.stopped ?? false, recover: false },
    providers,
    { logger: opts.logger ?? logger, clock, metrics: { recordSequencingError: () => void errors.push('err') } },
  );
  running = seq;
  await seq.init();
  return { clock, engine, ctrl, seq, attributes, errors, published, stateLog: lockLog };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('Sequencer build loop', () => {
  it('makes one block per slot: build one block time ahead, seal 50 ms before the slot, insert', async () => {
    const { engine, ctrl, seq, published } = await setup();
    await until(() => ctrl.heads.unsafe.number >= 7, '7 blocks');
    await seq.close();
    for (let n = 1; n <= 7; n++) {
      const slotMs = (1000 + 2 * n) * 1000;
      const build = engine.log.find((e) => e.call === 'build' && e.time === 1000 + 2 * n);
      const seal = engine.log.find((e) => e.call === 'getPayload' && e.number === n);
      const insert = engine.log.find((e) => e.call === 'newPayload' && e.number === n);
      // Block 1's slot started before the clock did (1_000_500): built at once; later ones at the slot start.
      expect(build?.at).toBe(n === 1 ? 1_000_500 : slotMs - 2000);
      expect(seal?.at).toBe(slotMs - 50);
      expect(insert?.at).toBe(slotMs - 50);
    }
    expect(engine.log.filter((e) => e.call === 'getPayload')).toHaveLength(ctrl.heads.unsafe.number);
    const h = ctrl.heads.unsafe;
    expect(h.timestamp).toBe(1000 + 2 * h.number);
    expect(published.slice(0, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(seq.lastSealed?.number).toBe(h.number);
  });

  it('adopts the next L1 origin when the L2 time reaches it, restarting the sequence number', async () => {
    const { engine, ctrl } = await setup();
    await until(() => ctrl.heads.unsafe.number >= 7, '7 blocks');
    const refs = await Promise.all([5, 6, 7].map((n) => engine.l2BlockRefByNumber(n)));
    expect(refs.map((r) => [r.timestamp, r.l1origin.number, r.sequenceNumber])).toEqual([
      [1010, 0, 5],
      [1012, 1, 0],
      [1014, 1, 1],
    ]);
  });

  it('catches up at once when the head is behind the wall clock', async () => {
    const { engine, ctrl } = await setup({ startMs: 1_020_000 });
    await until(() => ctrl.heads.unsafe.number >= 10, '10 blocks');
    // Slots 1..9 are already past: built back to back at the start time (the clock only moves when sleeping).
    const builds = engine.log.filter((e) => e.call === 'build').slice(0, 9);
    expect(new Set(builds.map((b) => b.at))).toEqual(new Set([1_020_000]));
  });

  it('rebuilds after one block time when the engine rejects the block', async () => {
    const { engine, ctrl, attributes, errors } = await setup();
    attributes.inject = [INVALID_TX];
    await until(() => ctrl.heads.unsafe.number >= 2, '2 blocks');
    expect(errors).toEqual(['err']);
    const tries = engine.log.filter((e) => e.call === 'newPayload' && e.number === 1);
    expect(tries).toHaveLength(2);
    expect((tries[1]?.at ?? 0) - (tries[0]?.at ?? 0)).toBeGreaterThanOrEqual(2000);
    const b1 = await engine.payloadByNumber(1);
    expect(b1.payload.transactions.some((t) => t.length === 3 && t[2] === 0xad)).toBe(false);
  });

  it('backs off exponentially (bounded) while the engine is down: one ERROR, then summaries, then recovered', async () => {
    const lines: Array<{ lvl: string; msg: string; failures?: number }> = [];
    const capture = createLogger({
      level: 'debug',
      format: 'json',
      stream: { write: (l: string) => lines.push(JSON.parse(l)) },
    }).logger;
    const { clock, engine, ctrl } = await setup({ logger: capture });
    await until(() => ctrl.heads.unsafe.number >= 2, '2 blocks');
    const downAt = clock.now();
    const upAt = downAt + 120_000;
    const attempts: number[] = [];
    const fcu = engine.forkchoiceUpdated.bind(engine);
    engine.forkchoiceUpdated = async (st, a) => {
      if (clock.now() < upAt) {
        attempts.push(clock.now());
        throw new TernError('ENGINE_UNAVAILABLE', 'connect ECONNREFUSED 127.0.0.1:8551', { severity: 'temporary' });
      }
      return fcu(st, a);
    };
    const head = ctrl.heads.unsafe.number;
    await until(() => clock.now() > upAt && ctrl.heads.unsafe.number > head + 2, 'sequencing after the engine is back');
    // Exponential from 1 s, bounded at 10 s: about 16 tries in two minutes, not 120.
    expect(attempts.length).toBeGreaterThan(8);
    expect(attempts.length).toBeLessThan(25);
    const gaps = attempts.slice(1).map((t, i) => t - (attempts[i] as number));
    expect(gaps[1] as number).toBeGreaterThan(gaps[0] as number);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(10_000 + 2000);
    expect(gaps.slice(-3).every((g) => g >= 7000)).toBe(true);
    const seq = lines.filter((l) => /Sequencing/.test(l.msg));
    expect(seq.filter((l) => l.lvl === 'error' || l.lvl === 'eror').map((l) => l.msg)).toEqual([
      'Sequencing failed temporarily, backing off',
    ]);
    const summaries = seq.filter((l) => l.msg === 'Sequencing still failing, backing off');
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    expect(summaries.length).toBeLessThanOrEqual(4);
    expect(seq.find((l) => l.msg === 'Sequencing recovered')?.failures).toBe(attempts.length);
  });

  it('pauses while the safe head lags by --sequencer.max-safe-lag, resumes when it catches up', async () => {
    const { clock, ctrl } = await setup({ maxSafeLag: 3 });
    await until(() => clock.now() > 1_030_000, 'time to pass');
    expect(ctrl.heads.unsafe.number).toBe(3);
    const b2 = await ctrl.engine.l2BlockRefByNumber(2);
    await ctrl.reset({ unsafe: ctrl.heads.unsafe, safe: b2, finalized: ctrl.heads.finalized });
    await until(() => ctrl.heads.unsafe.number >= 5, 'resume');
  });
});

class FakeConductor implements SequencerConductor {
  readonly enabled = true;
  leading = false;
  leaderOverridden = false;
  readonly commits: number[] = [];
  constructor(readonly engine: () => TimedEngine | undefined) {}
  async leader() {
    return this.leading;
  }
  async commitUnsafePayload(env: PayloadEnvelopeLike) {
    const n = Number(env.executionPayload.blockNumber);
    // The engine must not have seen the block yet.
    if (this.engine()?.log.some((e) => e.call === 'newPayload' && e.number === n))
      throw new Error('committed after insert');
    this.commits.push(n);
  }
  async active() {
    return true;
  }
  async overrideLeader() {
    this.leaderOverridden = true;
  }
  async close() {}
}

describe('Sequencer with a conductor', () => {
  it('builds only while leader, and commits each payload before inserting it', async () => {
    let eng: TimedEngine | undefined;
    const conductor = new FakeConductor(() => eng);
    const { engine, ctrl, clock } = await setup({ conductor });
    eng = engine;
    await until(() => clock.now() > 1_010_000, 'time to pass');
    expect(ctrl.heads.unsafe.number).toBe(0);
    conductor.leading = true;
    await until(() => ctrl.heads.unsafe.number >= 3, '3 blocks');
    expect(conductor.commits.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('admin start refuses a non-leader', async () => {
    const conductor = new FakeConductor(() => undefined);
    const { seq } = await setup({ conductor, stopped: true });
    await expect(seq.start(GENESIS_L2)).rejects.toThrow(/not the leader/);
  });
});

describe('Sequencer stop and start', () => {
  it('stop returns the head it stopped on; start only on that head; the state listener hears both', async () => {
    const { seq, ctrl, stateLog } = await setup();
    await until(() => ctrl.heads.unsafe.number >= 3, '3 blocks');
    const hash = await seq.stop();
    expect(seq.active).toBe(false);
    expect(hash).toBe(ctrl.heads.unsafe.hash);
    const stoppedAt = ctrl.heads.unsafe.number;
    for (let i = 0; i < 200; i++) await new Promise((r) => setImmediate(r));
    expect(ctrl.heads.unsafe.number).toBe(stoppedAt);
    await expect(seq.stop()).rejects.toThrow('sequencer not running');
    await expect(seq.start(`0x${'12'.repeat(32)}`)).rejects.toThrow(/block hash does not match/);
    await seq.start(hash);
    await expect(seq.start(hash)).rejects.toThrow('sequencer already running');
    await until(() => ctrl.heads.unsafe.number > stoppedAt, 'more blocks');
    expect((await ctrl.engine.l2BlockRefByNumber(stoppedAt + 1)).parentHash).toBe(hash);
    expect(stateLog).toEqual(['started', 'stopped', 'started']);
  });

  it('starts stopped with --sequencer.stopped', async () => {
    const { seq, ctrl, clock, stateLog } = await setup({ stopped: true });
    await until(() => clock.now() >= 1_000_500, 'tick');
    for (let i = 0; i < 200; i++) await new Promise((r) => setImmediate(r));
    expect(ctrl.heads.unsafe.number).toBe(0);
    expect(seq.active).toBe(false);
    expect(stateLog).toEqual(['stopped']);
  });
});
