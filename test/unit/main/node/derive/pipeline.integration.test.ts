// The whole pipeline over a scripted L1: a batcher posts a channel per epoch (singular batches before Delta, span
// batches after; zlib, then brotli from Fjord; one channel in a blob), deposits arrive as TransactionDeposited logs,
// the system config changes (batcher, gas limit, fee scalars, EIP-1559 parameters), and Delta, Ecotone, Fjord,
// Granite and Holocene activate during the run. Every derived attribute is checked, and an L1 reorg mid-run makes
// the pipeline reset and derive the same L2 chain again on the new L1 blocks.
import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { DerivationPipeline } from '../../../../../src/main/node/derive/pipeline.js';
import { fromHex, type L2BlockRef, toHex } from '../../../../../src/main/node/derive/types.js';
import { bundledBytecode } from '../../../../../src/main/node/derive/upgrades/common.js';
import { ecotoneUpgradeTxs } from '../../../../../src/main/node/derive/upgrades/ecotone.js';
import { fjordUpgradeTxs } from '../../../../../src/main/node/derive/upgrades/fjord.js';
import { fakeExponential } from '../../../../../src/main/primitives/block/fees.js';
import { decodeL1InfoCalldata } from '../../../../../src/main/primitives/op/l1Info.js';
import type { Log } from '../../../../../src/main/primitives/receipt/receipt.js';
import { parseRollupConfig, type RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import { decodeDepositTx, encodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { userDepositSourceHash } from '../../../../../src/main/primitives/tx/deposit/sourceHash.js';
import type { SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';
import { encodeBlobData } from '../../../../../src/main/protocol/blob/blobData.js';
import { configUpdateLog, depositLog, PORTAL, SYSCFG, word } from './fixtures.js';
import {
  addressOf,
  batcherData,
  channelFrames,
  FakeBlobs,
  FakeL1,
  FakeL2,
  fakeVersionedHash,
  l2Hash,
  l2UserTx,
  privKey,
  signTx,
  singular,
  span,
} from './l1Fake.js';

const G = 1_700_000_000; // L1 genesis time = L2 genesis time
const L1_GENESIS = 100;
const EPOCH = (i: number) => G + 12 * i; // time of L1 block 100 + i, first L2 block of epoch i
interface Forks {
  delta: number;
  ecotone: number;
  fjord: number;
  granite?: number;
  holocene?: number;
}
const FORKS: Forks = {
  delta: EPOCH(3),
  ecotone: EPOCH(5),
  fjord: EPOCH(7),
  granite: EPOCH(7),
  holocene: EPOCH(9),
};
const NEVER = Number.POSITIVE_INFINITY;
const EPOCHS = 12; // epochs 0..11 get batches; L1 blocks 100..112 exist
const batcher1 = privKey(1);
const batcher2 = privKey(2);
const stranger = privKey(3);
const user = privKey(9);
const DEPOSIT_AT = [2, 8]; // relative L1 blocks with a user deposit
const NEW_BATCHER_AT = 4; // system config: batcher and gas limit change
const SCALAR_AT = 6; // Ecotone fee scalars (version 1)
const EIP1559_AT = 10; // Holocene EIP-1559 parameters
const EIP1559 = (250n << 32n) | 6n;
const ECOTONE_SCALAR = `01${'00'.repeat(23)}${'00000457'}${'00000d05'}`;

function config(l1Genesis: string, forks: Forks, channelTimeout: number): RollupConfig {
  return parseRollupConfig({
    genesis: {
      l1: { hash: l1Genesis, number: L1_GENESIS },
      l2: { hash: l2Hash(0, G), number: 0 },
      l2_time: G,
      system_config: {
        batcherAddr: addressOf(batcher1),
        overhead: `0x${'00'.repeat(31)}bc`,
        scalar: `0x${'00'.repeat(29)}0a6fe0`,
        gasLimit: 30_000_000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 10,
    channel_timeout: channelTimeout,
    l1_chain_id: 900,
    l2_chain_id: 901,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: forks.delta,
    ecotone_time: forks.ecotone,
    fjord_time: forks.fjord,
    ...(forks.granite === undefined ? {} : { granite_time: forks.granite }),
    ...(forks.holocene === undefined ? {} : { holocene_time: forks.holocene }),
    batch_inbox_address: `0x${'ff'.repeat(19)}01`,
    deposit_contract_address: PORTAL,
    l1_system_config_address: SYSCFG,
  });
}

interface Expected {
  epoch: number; // relative L1 block
  userTxs: Uint8Array[];
}

/** The sequencer's chain: 6 blocks per epoch (L2 time = L1 time at each epoch start), some with user txs. */
function plannedChain(cfg: RollupConfig): Expected[] {
  const out: Expected[] = [{ epoch: 0, userTxs: [] }];
  let nonce = 0;
  for (let n = 1; n < EPOCHS * 6; n++) {
    const epoch = Math.floor(n / 6);
    const txs: Uint8Array[] = [];
    // Activation blocks of Ecotone (30) and Fjord (42) carry user txs too; Jovian is not scheduled here.
    if (n % 3 !== 2) txs.push(l2UserTx(cfg, user, nonce++, n % 2 === 0 ? 2 : 0));
    if (n % 5 === 0) txs.push(l2UserTx(cfg, user, nonce++));
    out.push({ epoch, userTxs: txs });
  }
  return out;
}

const depositLogFor = (i: number): Log =>
  depositLog({
    from: `0x${'a1'.repeat(20)}`,
    to: `0x${'b2'.repeat(20)}`,
    mint: 1000n * BigInt(i),
    value: 7n,
    gas: 100_000n,
    creation: false,
    data: `c0ffee${i.toString(16).padStart(2, '0')}`,
  });

interface Scenario {
  forks: Forks;
  cfg: RollupConfig;
  l1: FakeL1;
  blobs: FakeBlobs;
  chain: Expected[];
}

/**
 * Writes L1 blocks from relative number `from` on (the L1 chain must end just before it): the channel of epoch i-1
 * goes into L1 block i, with the epoch hashes of the L1 chain as it is.
 */
function writeL1(s: Scenario, from: number): void {
  const { cfg, l1, blobs, chain, forks } = s;
  for (let i = from; i <= EPOCHS; i++) {
    const txs: Uint8Array[] = [];
    const logs: Log[] = [];
    if (DEPOSIT_AT.includes(i)) logs.push(depositLogFor(i));
    if (i === NEW_BATCHER_AT) {
      logs.push(configUpdateLog(0, `${'00'.repeat(12)}${addressOf(batcher2).slice(2)}`));
      logs.push(configUpdateLog(2, word(40_000_000)));
    }
    if (i === SCALAR_AT) logs.push(configUpdateLog(1, word(0) + ECOTONE_SCALAR));
    if (i === EIP1559_AT) logs.push(configUpdateLog(4, word(EIP1559)));
    const key = i >= NEW_BATCHER_AT ? batcher2 : batcher1;
    let nonce = 0;
    const send = (data: Uint8Array, extra: { type?: 3; blobHashes?: string[] } = {}) =>
      txs.push(
        signTx(key, { chainId: cfg.l1ChainId, to: cfg.batchInboxAddress, data, nonce: BigInt(nonce++), ...extra }),
      );
    // Someone else posting to the inbox is ignored.
    txs.push(signTx(stranger, { chainId: cfg.l1ChainId, to: cfg.batchInboxAddress, data: Uint8Array.of(0, 1, 2) }));
    if (i >= 1) {
      const e = i - 1;
      const first = e === 0 ? 1 : e * 6;
      const last = e * 6 + 5;
      const batches: SingularBatch[] = [];
      for (let n = first; n <= last; n++) {
        const blk = chain[n] as Expected;
        batches.push({
          parentHash: fromHex(l2Hash(n - 1, G + 2 * (n - 1))),
          epochNum: L1_GENESIS + blk.epoch,
          epochHash: fromHex(l1.block(L1_GENESIS + blk.epoch).ref.hash),
          timestamp: G + 2 * n,
          transactions: blk.userTxs,
        });
      }
      const l1Time = EPOCH(i);
      // Span batches once their L1 origin (the epoch) is past Delta.
      const data = EPOCH(e) < forks.delta ? batches.map(singular) : [span(cfg, batches, first % 6)];
      const compression = l1Time >= forks.fjord ? 'brotli' : 'zlib';
      const frames = channelFrames(data, { compression, maxFrameSize: e === 1 ? 200 : 100_000 });
      if (e === 1) expect(frames.length).toBeGreaterThan(1); // a multi-frame channel, one frame per tx
      if (i === 6) {
        // Ecotone is active by L1 time: this channel goes in a blob (with a non-batcher blob before it).
        const other = encodeBlobData(Uint8Array.of(1, 2, 3));
        const blob = encodeBlobData(batcherData(frames));
        for (const b of [other, blob]) blobs.blobs.set(fakeVersionedHash(b), b);
        txs.push(
          signTx(stranger, {
            type: 3,
            chainId: cfg.l1ChainId,
            to: cfg.batchInboxAddress,
            nonce: 1n,
            blobHashes: [fakeVersionedHash(other)],
          }),
        );
        send(new Uint8Array(0), { type: 3, blobHashes: [fakeVersionedHash(blob)] });
      } else if (e === 1) {
        for (const f of frames) send(batcherData([f]));
      } else {
        send(batcherData(frames));
      }
    }
    l1.add({ txs, logs });
  }
}

function scenario(forks: Forks = FORKS, channelTimeout = 30): Scenario {
  const l1 = new FakeL1(L1_GENESIS, G);
  l1.add(); // genesis L1 block, relative 0
  const cfg = config(l1.block(L1_GENESIS).ref.hash, forks, channelTimeout);
  const s = { forks, cfg, l1, blobs: new FakeBlobs(), chain: plannedChain(cfg) };
  writeL1(s, 1);
  return s;
}

/** Steps the pipeline until L1 is exhausted, accepting every attribute; resets like a driver on reset errors. */
async function drive(p: DerivationPipeline, l2: FakeL2, l1: FakeL1, onReset?: () => void): Promise<number> {
  let resets = 0;
  for (let guard = 0; guard < 10_000; guard++) {
    let r: Awaited<ReturnType<DerivationPipeline['step']>>;
    try {
      r = await p.step(l2.head);
    } catch (err) {
      if (!(err instanceof TernError) || err.severity !== 'reset') throw err;
      resets++;
      onReset?.();
      // Keep the L2 blocks whose L1 origin is still canonical, and restart from the new safe head.
      const canonical = (b: L2BlockRef) => l1.blocks.some((x) => x.ref.hash === b.l1origin.hash);
      while (l2.blocks.length > 1 && !canonical(l2.head)) l2.rewind(l2.head.number - 1);
      await p.reset(l2.head);
      continue;
    }
    if (r.kind === 'attributes') l2.accept(r.attributes);
    if (r.kind === 'eof') return resets;
  }
  throw new Error('derivation did not finish');
}

function checkChain(s: Scenario, l2: FakeL2, upTo: number): void {
  const { l1, chain } = s;
  const F = { ...s.forks, holocene: s.forks.holocene ?? NEVER };
  const code = bundledBytecode();
  const ecotoneTxs = ecotoneUpgradeTxs(code).map(encodeDepositTx);
  const fjordTxs = fjordUpgradeTxs(code).map(encodeDepositTx);
  expect(l2.head.number).toBe(upTo);
  for (let n = 1; n <= upTo; n++) {
    const blk = l2.blocks[n];
    const want = chain[n] as Expected;
    const at = `L2 block ${n}`;
    if (blk?.attributes === undefined) throw new Error(`${at} missing`);
    const a = blk.attributes;
    const t = G + 2 * n;
    const origin = l1.block(L1_GENESIS + want.epoch);
    expect(a.timestamp, at).toBe(t);
    expect(blk.ref.parentHash, at).toBe(l2Hash(n - 1, t - 2));
    expect(blk.ref.l1origin, at).toEqual({ number: origin.ref.number, hash: origin.ref.hash });
    expect(a.noTxPool, at).toBe(true);
    expect(a.suggestedFeeRecipient, at).toBe('0x4200000000000000000000000000000000000011');
    expect(toHex(a.prevRandao), at).toBe(toHex(origin.header.mixHash));
    expect(a.withdrawals, at).toEqual([]);
    const ecotone = t >= F.ecotone;
    expect(a.parentBeaconBlockRoot && toHex(a.parentBeaconBlockRoot), at).toBe(
      ecotone ? toHex(origin.header.parentBeaconBlockRoot as Uint8Array) : undefined,
    );
    expect(a.gasLimit, at).toBe(want.epoch >= NEW_BATCHER_AT ? 40_000_000n : 30_000_000n);
    if (t < F.holocene) expect(a.eip1559Params, at).toBeUndefined();
    else if (t === F.holocene || want.epoch < EIP1559_AT)
      expect(toHex(a.eip1559Params as Uint8Array), at).toBe(`0x${'00'.repeat(8)}`);
    else expect(toHex(a.eip1559Params as Uint8Array), at).toBe(`0x${EIP1559.toString(16).padStart(16, '0')}`);
    expect(a.minBaseFee, at).toBeUndefined();

    // The L1-info deposit: Bedrock encoding up to and including the Ecotone activation block.
    const infoTx = decodeDepositTx(a.transactions[0] as Uint8Array);
    const info = decodeL1InfoCalldata(infoTx.data);
    expect(info.format, at).toBe(t > F.ecotone ? 'ecotone' : 'bedrock');
    expect(info.number, at).toBe(BigInt(origin.ref.number));
    expect(info.time, at).toBe(BigInt(origin.ref.timestamp));
    expect(toHex(info.blockHash), at).toBe(origin.ref.hash);
    expect(info.baseFee, at).toBe(origin.header.baseFeePerGas);
    expect(info.sequenceNumber, at).toBe(BigInt(n % 6));
    const batcher = want.epoch >= NEW_BATCHER_AT ? batcher2 : batcher1;
    expect(toHex(info.batcherHash.subarray(12)), at).toBe(addressOf(batcher));
    if (info.format === 'bedrock') {
      expect(info.l1FeeOverhead, at).toBe(0xbcn);
      expect(info.l1FeeScalar, at).toBe(0x0a6fe0n);
    } else {
      expect(info.blobBaseFee, at).toBe(fakeExponential(1n, origin.header.excessBlobGas as bigint, 3_338_477n));
      // Before the scalar update the pre-Ecotone scalar (a version-0 value) carries the base fee scalar alone.
      expect(info.baseFeeScalar, at).toBe(want.epoch >= SCALAR_AT ? 0xd05n : 0x0a6fe0n);
      expect(info.blobBaseFeeScalar, at).toBe(want.epoch >= SCALAR_AT ? 0x457n : 0n);
    }

    // Then the user deposits (first block of an epoch whose L1 block has them), then the upgrade transactions.
    let rest = a.transactions.slice(1);
    const firstOfEpoch = n % 6 === 0;
    if (firstOfEpoch && DEPOSIT_AT.includes(want.epoch)) {
      const d = decodeDepositTx(rest[0] as Uint8Array);
      const logIndex = 0; // the only log of its block
      expect(toHex(d.sourceHash), at).toBe(toHex(userDepositSourceHash(fromHex(origin.ref.hash), BigInt(logIndex))));
      expect(toHex(d.from), at).toBe(`0x${'a1'.repeat(20)}`);
      expect(d.to && toHex(d.to), at).toBe(`0x${'b2'.repeat(20)}`);
      expect(d.mint, at).toBe(1000n * BigInt(want.epoch));
      expect(toHex(d.data), at).toBe(`0xc0ffee${want.epoch.toString(16).padStart(2, '0')}`);
      rest = rest.slice(1);
    }
    if (t === F.ecotone) {
      expect(rest.slice(0, ecotoneTxs.length), at).toEqual(ecotoneTxs);
      rest = rest.slice(ecotoneTxs.length);
    }
    if (t === F.fjord) {
      expect(rest.slice(0, fjordTxs.length), at).toEqual(fjordTxs);
      rest = rest.slice(fjordTxs.length);
    }
    for (const x of rest.slice(0, rest.length - want.userTxs.length)) expect(x[0], at).not.toBe(0x7e);
    // Nothing else: exactly the batch's transactions, in order.
    expect(rest.map(toHex), at).toEqual(want.userTxs.map(toHex));
  }
}

describe('derivation pipeline over a scripted L1', () => {
  it('derives every block, across Delta, Ecotone, Fjord, Granite and Holocene, exactly as posted', async () => {
    const s = scenario();
    const l2 = new FakeL2(s.cfg);
    const dropped: string[] = [];
    const drops = { drop: (kind: string, reason: string) => dropped.push(`${kind}: ${reason}`) };
    const p = new DerivationPipeline(s.cfg, { l1: s.l1, blobs: s.blobs, l2 }, {}, { drops });
    await p.reset(l2.head);
    const resets = await drive(p, l2, s.l1);
    expect(dropped).toEqual([]);
    expect(resets).toBe(0);
    // The last epoch's channel is in the last L1 block: every planned block is there.
    checkChain(s, l2, EPOCHS * 6 - 1);
    expect(p.batches.holocene).toBe(true);
    expect(p.origin()?.number).toBe(L1_GENESIS + EPOCHS);
    // The blob was fetched for the blob-carrying block only, with its block-wide index (1: after the stranger's).
    expect(s.blobs.requests.map((r) => [r.block, r.hashes.map((h) => h.index)])).toEqual([[L1_GENESIS + 6, [1]]]);
  });

  it('needs a reset before stepping', async () => {
    const s = scenario();
    const p = new DerivationPipeline(s.cfg, { l1: s.l1, blobs: s.blobs, l2: new FakeL2(s.cfg) }, {});
    await expect(p.step(new FakeL2(s.cfg).head)).rejects.toMatchObject({ severity: 'reset' });
  });

  it('stops at the L1 head and continues when L1 grows', async () => {
    const s = scenario();
    const l2 = new FakeL2(s.cfg);
    const p = new DerivationPipeline(s.cfg, { l1: s.l1, blobs: s.blobs, l2 }, {});
    await p.reset(l2.head);
    s.l1.head = L1_GENESIS + 5;
    await drive(p, l2, s.l1);
    expect(p.origin()?.number).toBe(L1_GENESIS + 5);
    expect(l2.head.number).toBe(4 * 6 + 5); // epochs 0..4 posted in L1 blocks 1..5
    s.l1.head = Number.POSITIVE_INFINITY;
    await drive(p, l2, s.l1);
    checkChain(s, l2, EPOCHS * 6 - 1);
  });

  it('restarts from a safe head mid-run (reset walks back a channel timeout) and derives the same chain', async () => {
    const s = scenario();
    const first = new FakeL2(s.cfg);
    const p1 = new DerivationPipeline(s.cfg, { l1: s.l1, blobs: s.blobs, l2: first }, {});
    await p1.reset(first.head);
    s.l1.head = L1_GENESIS + 8;
    await drive(p1, first, s.l1);
    s.l1.head = Number.POSITIVE_INFINITY;
    // A new pipeline (a restarted node) on the same L2 chain.
    const p2 = new DerivationPipeline(s.cfg, { l1: s.l1, blobs: s.blobs, l2: first }, {});
    await p2.reset(first.head);
    await drive(p2, first, s.l1);
    checkChain(s, first, EPOCHS * 6 - 1);
  });

  it('a reset walks back a channel timeout of L1 origins and re-reads channels opened there (pre-Granite)', async () => {
    const forks: Forks = { delta: FORKS.delta, ecotone: FORKS.ecotone, fjord: FORKS.fjord };
    const s = scenario(forks, 2);
    const l2 = new FakeL2(s.cfg);
    const p1 = new DerivationPipeline(s.cfg, { l1: s.l1, blobs: s.blobs, l2 }, {});
    await p1.reset(l2.head);
    s.l1.head = L1_GENESIS + 9;
    await drive(p1, l2, s.l1);
    expect(l2.head.number).toBe(8 * 6 + 5);
    s.l1.head = Number.POSITIVE_INFINITY;
    const p2 = new DerivationPipeline(s.cfg, { l1: s.l1, blobs: s.blobs, l2 }, {});
    await p2.reset(l2.head);
    // Safe head origin 108: the walk back stops at the first L2 block (going back) whose origin is no longer within
    // the channel timeout (2) of it: block 41, origin 106, where traversal restarts with that block's config.
    expect(p2.traversal.origin()?.number).toBe(L1_GENESIS + 6);
    expect(p2.traversal.systemConfig().gasLimit).toBe(40_000_000n);
    await drive(p2, l2, s.l1);
    checkChain(s, l2, EPOCHS * 6 - 1);
  });

  it('an L1 reorg mid-run resets the pipeline, which derives the chain again on the new L1 blocks', async () => {
    const s = scenario();
    const l2 = new FakeL2(s.cfg);
    const p = new DerivationPipeline(s.cfg, { l1: s.l1, blobs: s.blobs, l2 }, {});
    await p.reset(l2.head);
    s.l1.head = L1_GENESIS + 9;
    await drive(p, l2, s.l1);
    expect(l2.head.number).toBe(8 * 6 + 5);
    const oldOrigin8 = s.l1.block(L1_GENESIS + 8).ref.hash;
    // L1 blocks from relative 8 on are replaced by others (same batcher data, re-posted with the new epoch hashes).
    s.l1.reorgFrom(L1_GENESIS + 8);
    writeL1(s, 8);
    s.l1.head = Number.POSITIVE_INFINITY;
    expect(s.l1.block(L1_GENESIS + 8).ref.hash).not.toBe(oldOrigin8);
    const resets = await drive(p, l2, s.l1);
    expect(resets).toBe(1);
    checkChain(s, l2, EPOCHS * 6 - 1);
  });
});
