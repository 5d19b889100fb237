// The whole replica: a sequencer tern-exec builds L2 blocks through the Engine API (tern-node's engine controller
// over the in-process engine, attributes from the production attributes builder plus forced user transactions),
// a batcher posts each epoch's blocks as a span batch (the batcher's own L2-block → batch conversion, the production
// channel encoder) in a calldata transaction to the batch inbox of a scripted L1, which also carries user deposits.
// A second tern-exec, driven by tern-node's driver (derivation pipeline, engine controller, finalizer) over the
// in-process engine, sees only that L1. It must reach the sequencer's L2 block hashes, with the safe head following
// the batches and finality following L1 finality, across Ecotone (upgrade transactions), Fjord/Granite and Holocene
// activations. Before it starts, the replica holds some of the sequencer's blocks as unsafe (gossip): those are
// consolidated, not rebuilt; and a block a rogue sequencer built for the next height is reorged out by derivation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSingularBatch } from '../../src/main/batcher/l2Block.js';
import type { Logger } from '../../src/main/common/logger/index.js';
import { AttributesBuilder } from '../../src/main/node/derive/attributesBuilder.js';
import { DerivationPipeline } from '../../src/main/node/derive/pipeline.js';
import type { PayloadAttributes as DerivedAttributes, L2BlockRef } from '../../src/main/node/derive/types.js';
import { Driver } from '../../src/main/node/driver/driver.js';
import { toEngineAttributes } from '../../src/main/node/engine/attributes.js';
import { type AttributesOutcome, EngineController } from '../../src/main/node/engine/engineController.js';
import { HttpEngine } from '../../src/main/node/engine/http.js';
import { InProcessEngine } from '../../src/main/node/engine/inProcess.js';
import type { Engine } from '../../src/main/node/engine/interface.js';
import { DisabledSafeDb } from '../../src/main/node/safedb/safedb.js';
import { isHolocene, type RollupConfig } from '../../src/main/primitives/rollup/config.js';
import { encodeBatchData } from '../../src/main/protocol/batch/batchCodec.js';
import { SpanBatchBuilder } from '../../src/main/protocol/batch/spanBatch.js';
import { ChannelOut } from '../../src/main/protocol/channel/channel.js';
import { encodeBatcherData } from '../../src/main/protocol/channel/frame.js';
import { depositLog, PORTAL } from '../unit/main/node/derive/fixtures.js';
import { addressOf, FakeL1, privKey, signTx } from '../unit/main/node/derive/l1Fake.js';
import {
  bytes,
  type ExecNode,
  hex,
  opGenesisJson,
  rollupConfig,
  serveAuthRpc,
  silentLogger,
  startExec,
} from './opGenesis.js';

const G = 1_700_000_000;
const L1_GENESIS = 100;
const CHAIN_ID = 901n;
const GAS_LIMIT = 30_000_000n;
const FORKS = {
  canyon: 0,
  delta: 0,
  ecotone: G + 24, // L2 block 12, first of epoch 2
  fjord: G + 48,
  granite: G + 48,
  holocene: G + 72,
};
const INBOX = `0x${'ff'.repeat(20)}`;
const batcherKey = privKey(1);
const BATCHER = addressOf(batcherKey);
const user = privKey(0x21);
const USER = addressOf(user);
const rogue = privKey(0x22);
const ROGUE = addressOf(rogue);
const ETH = 10n ** 18n;
const EPOCHS = 8; // sequenced before the replica starts; one more follows live
const UNSAFE_GOSSIP = 8; // blocks 1..8 reach the replica as unsafe payloads; block 9 comes from a rogue sequencer

interface Sequenced {
  ref: L2BlockRef;
  attributes: DerivedAttributes;
  payload: import('../../src/main/protocol/engine/types.js').ExecutionPayload;
  parentBeaconBlockRoot: Uint8Array | undefined;
}

/** The sequencer: a tern-exec, tern-node's engine controller over the in-process engine, and the attributes builder. */
class Sequencer {
  readonly blocks: Sequenced[] = [];
  private nonce = 0n;
  private readonly builder: AttributesBuilder;

  constructor(
    readonly cfg: RollupConfig,
    readonly l1: FakeL1,
    readonly exec: ExecNode,
    readonly engine: InProcessEngine,
    readonly controller: EngineController,
  ) {
    this.builder = new AttributesBuilder(cfg, l1, engine);
  }

  get head(): L2BlockRef {
    return this.controller.heads.unsafe;
  }

  /** Builds the next block on the L1 origin `epoch`, with one user transfer in every other block. */
  async next(epoch: number): Promise<Sequenced> {
    const parent = this.head;
    const origin = this.l1.block(epoch).ref;
    const attributes = await this.builder.prepare(parent, { number: origin.number, hash: origin.hash });
    if (parent.number % 2 === 0) {
      attributes.transactions.push(
        signTx(user, {
          type: 2,
          chainId: CHAIN_ID,
          nonce: this.nonce++,
          to: `0x${'42'.repeat(20)}`,
          value: 1n,
          gas: 21_000n,
        }),
      );
    }
    const built = await this.controller.buildBlock(parent, attributes, { safe: false, derived: false });
    if (!built.ok) throw new Error(`sequencer could not build on ${parent.number}: ${built.reason}`);
    const s = {
      ref: built.ref,
      attributes,
      payload: built.payload,
      parentBeaconBlockRoot: attributes.parentBeaconBlockRoot,
    };
    this.blocks.push(s);
    return s;
  }
}

/** The batch of one epoch's blocks as a calldata batcher transaction (span batch, zlib before Fjord, brotli after). */
function batcherTx(cfg: RollupConfig, blocks: Sequenced[], nonce: number, l1Time: number): Uint8Array {
  const span = new SpanBatchBuilder(cfg.genesis.l2Time, cfg.l2ChainId);
  for (const b of blocks) {
    const batch = toSingularBatch({
      number: b.ref.number,
      hash: b.ref.hash,
      parentHash: b.ref.parentHash,
      timestamp: b.ref.timestamp,
      l1Origin: b.ref.l1origin,
      sequenceNumber: b.ref.sequenceNumber,
      transactions: b.payload.transactions.filter((t) => t[0] !== 0x7e),
    });
    span.append(batch, b.ref.sequenceNumber);
  }
  const channel = new ChannelOut({ compression: l1Time >= FORKS.fjord ? 'brotli' : 'zlib' });
  channel.addBatch(encodeBatchData({ type: 1, batch: span.toRaw() }));
  const frames = channel.frames(100_000);
  return signTx(batcherKey, {
    type: 2,
    chainId: cfg.l1ChainId,
    nonce: BigInt(nonce),
    to: INBOX,
    data: encodeBatcherData(frames),
    gas: 2_000_000n,
  });
}

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const engineKind of ['inProcess', 'http'] as const)
  describe(`a replica deriving the sequencer chain from L1 alone (${engineKind} engine)`, () => {
    const logger: Logger = silentLogger();
    let stopRpc: (() => Promise<void>) | undefined;
    let l1: FakeL1;
    let cfg: RollupConfig;
    let seqExec: ExecNode;
    let repExec: ExecNode;
    let seq: Sequencer;
    let repEngine: Engine;
    let repController: EngineController;
    let driver: Driver;
    const outcomes: AttributesOutcome[] = [];
    let rogueHash = '';
    let batcherNonce = 0;

    /** Adds L1 block `100 + epoch` (a deposit in odd epochs, the previous epoch's batch) and sequences the epoch. */
    async function epoch(i: number): Promise<void> {
      const prev = seq.blocks.filter((b) => b.ref.l1origin.number === L1_GENESIS + i - 1);
      const time = G + 12 * i;
      const logs =
        i % 2 === 1
          ? [
              depositLog({
                from: `0x${'d1'.repeat(20)}`,
                to: `0x${'d2'.repeat(20)}`,
                mint: ETH,
                value: ETH / 2n,
                gas: 100_000n,
                creation: false,
                data: '',
              }),
            ]
          : [];
      l1.add({ txs: prev.length > 0 ? [batcherTx(cfg, prev, batcherNonce++, time)] : [], logs });
      const first = i === 0 ? 1 : 0;
      for (let k = first; k < 6; k++) await seq.next(L1_GENESIS + i);
    }

    beforeAll(async () => {
      l1 = new FakeL1(L1_GENESIS, G);
      const genesis = opGenesisJson({
        chainId: CHAIN_ID,
        timestamp: G,
        gasLimit: GAS_LIMIT,
        forks: FORKS,
        funded: { [USER]: 100n * ETH, [ROGUE]: 100n * ETH },
      });
      seqExec = await startExec(genesis, logger);
      repExec = await startExec(genesis, logger);
      // L1 block 100 is the rollup's L1 genesis: it exists before anything is sequenced.
      const l1Genesis = l1.add({}).ref;
      cfg = rollupConfig({
        l2Genesis: { hash: hex(seqExec.genesisHash), time: G },
        l1Genesis: { hash: l1Genesis.hash, number: l1Genesis.number },
        chainId: CHAIN_ID,
        forks: FORKS,
        batcher: BATCHER,
        gasLimit: GAS_LIMIT,
        seqWindowSize: 10,
        channelTimeout: 8,
        batchInbox: INBOX,
        depositContract: PORTAL,
      });
      const seqEngine = new InProcessEngine(cfg, seqExec, {}, { logger });
      const seqController = new EngineController(cfg, seqEngine, { logger });
      const genesisRef = await seqEngine.l2BlockRefByLabel('latest');
      await seqController.reset({ unsafe: genesisRef, safe: genesisRef, finalized: genesisRef });
      seq = new Sequencer(cfg, l1, seqExec, seqEngine, seqController);
      // Epoch 0 uses the genesis L1 block (no deposits, no batch); epochs 1.. add their L1 block first.
      for (let k = 1; k < 6; k++) await seq.next(L1_GENESIS);
      for (let i = 1; i < EPOCHS; i++) await epoch(i);
      // The last epoch's batch.
      const last = seq.blocks.filter((b) => b.ref.l1origin.number === L1_GENESIS + EPOCHS - 1);
      l1.add({ txs: [batcherTx(cfg, last, batcherNonce++, G + 12 * EPOCHS)] });

      if (engineKind === 'inProcess') {
        repEngine = new InProcessEngine(cfg, repExec, {}, { logger });
      } else {
        const secret = new Uint8Array(32).fill(0x77);
        const srv = await serveAuthRpc(repExec, secret);
        stopRpc = srv.stop;
        repEngine = new HttpEngine(
          cfg,
          { url: srv.url, jwtSecret: secret, timeoutMs: 10_000, kind: 'geth', fetchWithdrawalRootFromState: false },
          { logger },
        );
      }
      repController = new EngineController(cfg, repEngine, { logger });
    });

    afterAll(async () => {
      await driver?.stop();
      await repEngine?.close();
      await stopRpc?.();
      await seqExec?.close();
      await repExec?.close();
    });

    it('sequenced a chain across the forks, with deposits and user transactions', () => {
      const blocks = seq.blocks;
      expect(blocks.length).toBe(6 * EPOCHS - 1);
      const at = (t: number) => blocks.find((b) => b.ref.timestamp === t) as Sequenced;
      expect(at(FORKS.ecotone).payload.transactions.length).toBeGreaterThan(6); // L1 info + 6 upgrade deposits
      expect(at(FORKS.fjord).payload.transactions.length).toBeGreaterThan(3);
      expect(at(FORKS.holocene).payload.extraData.length).toBe(9);
      const withDeposit = blocks.filter((b) => b.ref.sequenceNumber === 0 && b.attributes.transactions.length > 1);
      expect(withDeposit.length).toBeGreaterThan(0);
    });

    it('the replica holds gossiped unsafe blocks and a rogue block at the next height', async () => {
      // Gossip: blocks 1..8 as payloads (the replica's engine has them as unsafe).
      let head = repExec.genesisHash;
      for (const b of seq.blocks.slice(0, UNSAFE_GOSSIP)) {
        const s = await repEngine.newPayload(b.payload, b.parentBeaconBlockRoot);
        expect(s.status).toBe('VALID');
        head = b.payload.blockHash;
      }
      // A rogue sequencer's block 9: the same deposits, a different user transaction.
      const real = seq.blocks[UNSAFE_GOSSIP] as Sequenced;
      const attrs = toEngineAttributes({
        ...real.attributes,
        transactions: [
          ...real.attributes.transactions.filter((t) => t[0] === 0x7e),
          signTx(rogue, { type: 2, chainId: CHAIN_ID, nonce: 0n, to: ROGUE, value: 5n, gas: 21_000n }),
        ],
      });
      const zero = new Uint8Array(32);
      const fcu = await repEngine.forkchoiceUpdated(
        { headBlockHash: head, safeBlockHash: zero, finalizedBlockHash: zero },
        attrs,
      );
      const env = await repEngine.getPayload(fcu.payloadId as Uint8Array, Number(attrs.timestamp));
      expect((await repEngine.newPayload(env.executionPayload, env.parentBeaconBlockRoot)).status).toBe('VALID');
      rogueHash = hex(env.executionPayload.blockHash);
      expect(rogueHash).not.toBe(real.ref.hash);
      await repEngine.forkchoiceUpdated({
        headBlockHash: env.executionPayload.blockHash,
        safeBlockHash: zero,
        finalizedBlockHash: zero,
      });
      expect((await repEngine.l2BlockRefByLabel('latest')).hash).toBe(rogueHash);
    });

    it('derives the same L2 chain from L1: consolidating the gossiped blocks, replacing the rogue one', async () => {
      const original = repController.processAttributes.bind(repController);
      repController.processAttributes = async (a) => {
        const out = await original(a);
        outcomes.push(out);
        return out;
      };
      const pipeline = new DerivationPipeline(cfg, { l1, l2: repEngine }, {}, { logger });
      driver = new Driver(
        cfg,
        { syncMode: 'consensus-layer', idlePollMs: 50, retryDelayMs: 10, maxRetryDelayMs: 100 },
        { l1, derivation: pipeline, engine: repController, safeDb: new DisabledSafeDb() },
        { logger },
      );
      driver.start();
      driver.onL1Head('latest', l1.blocks[l1.blocks.length - 1]?.ref as never);
      const target = seq.head;
      // The controller moves its heads before its forkchoiceUpdated reaches the engine (as op-node does): wait for
      // the engine to have marked the target safe too, or the canonical index may still lack the last block.
      const engineSafe = () => {
        const h = repExec.store.safeHash();
        return h === undefined ? undefined : hex(h);
      };
      await until(
        `the replica's safe head to reach ${target.number}`,
        () =>
          repController.initialized &&
          repController.heads.safe.number >= target.number &&
          engineSafe() === repController.heads.safe.hash &&
          // ...and for the last processAttributes call to have returned (its forkchoiceUpdated answered).
          outcomes.length >= target.number,
      );
      expect(driver.stopError).toBeUndefined();
      expect(repController.heads.safe.hash).toBe(target.hash);
      expect(repController.heads.unsafe.hash).toBe(target.hash);
      for (let n = 0; n <= target.number; n++) {
        expect(hex(repExec.store.canonicalHash(BigInt(n)) as Uint8Array), `L2 block ${n}`).toBe(
          hex(seqExec.store.canonicalHash(BigInt(n)) as Uint8Array),
        );
      }
      // The engine's forkchoice: safe marked in the replica's exec.
      expect(hex(repExec.store.safeHash() as Uint8Array)).toBe(target.hash);
      // Blocks 1..8 consolidated, 9 rebuilt over the rogue block, the rest inserted.
      const kinds = outcomes.map((o) => o.kind);
      expect(kinds.slice(0, UNSAFE_GOSSIP)).toEqual(Array(UNSAFE_GOSSIP).fill('consolidated'));
      expect(outcomes[UNSAFE_GOSSIP]).toMatchObject({ kind: 'inserted', reorgedUnsafe: true });
      expect(kinds.slice(UNSAFE_GOSSIP + 1).every((k) => k === 'inserted')).toBe(true);
      expect(kinds.length).toBe(target.number);
      expect(repExec.store.isCanonical(bytes(rogueHash))).toBe(false);
      // The safe head only moved at span ends: every epoch's last block was made safe.
      expect(outcomes.filter((o) => 'safe' in o && o.safe).length).toBe(EPOCHS);
    });

    it('finalizes what was derived from finalized L1 blocks', async () => {
      expect(repController.heads.finalized.number).toBe(0);
      // L1 block 103 carries epoch 2's batch (L2 blocks 12..17).
      driver.onL1Head('finalized', l1.block(L1_GENESIS + 3).ref);
      await until('finality', () => repController.heads.finalized.number > 0);
      const finalized = repController.heads.finalized;
      expect(finalized.number).toBe(17);
      expect(finalized.hash).toBe((seq.blocks[16] as Sequenced).ref.hash);
      expect(hex(repExec.store.finalizedHash() as Uint8Array)).toBe(finalized.hash);
      expect(driver.syncStatus().finalizedL2?.number).toBe(17);
      // Later L1 finality moves it on; the last batch is in L1 block 100 + EPOCHS.
      driver.onL1Head('finalized', l1.block(L1_GENESIS + EPOCHS).ref);
      await until('finality of the whole chain', () => repController.heads.finalized.number === seq.head.number);
    });

    it('follows the sequencer as new batches land on L1 (safe head advancing past Holocene)', async () => {
      const before = repController.heads.safe.number;
      // Epoch EPOCHS's L1 block is the one holding the last batch; sequence it, then post its batch.
      for (let k = 0; k < 6; k++) await seq.next(L1_GENESIS + EPOCHS);
      expect(isHolocene(cfg, seq.head.timestamp)).toBe(true);
      const blocks = seq.blocks.filter((b) => b.ref.l1origin.number === L1_GENESIS + EPOCHS);
      const ref = l1.add({ txs: [batcherTx(cfg, blocks, batcherNonce++, G + 12 * (EPOCHS + 1))] }).ref;
      driver.onL1Head('latest', ref);
      // The engine's head too: the controller moves its heads before its forkchoiceUpdated lands.
      await until(
        'the new batch to be derived',
        () => repController.heads.safe.number === seq.head.number && hex(repExec.store.head().hash) === seq.head.hash,
      );
      expect(repController.heads.safe.number).toBe(before + 6);
      expect(repController.heads.safe.hash).toBe(seq.head.hash);
      expect(hex(repExec.store.head().hash)).toBe(seq.head.hash);
    });
  });
