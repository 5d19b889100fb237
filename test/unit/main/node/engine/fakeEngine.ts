// Test helpers: a small rollup config, L1-info deposits, derived attributes, and an in-memory Engine that builds
// blocks from attributes (hash = keccak of everything the attributes say), keeps a forkchoice, and rejects any
// block carrying the INVALID_TX marker.
import { TernError } from '../../../../../src/main/common/errors.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import type { PayloadAttributes as DerivedAttributes } from '../../../../../src/main/node/derive/types.js';
import { fromHex, toHex } from '../../../../../src/main/node/derive/types.js';
import {
  type Engine,
  type ExecutionPayload,
  engineNotFound,
  type ForkchoiceState,
  type ForkchoiceUpdatedResult,
  type L2Block,
  type L2Label,
  type L2Payload,
  type OutputV0,
  type PayloadAttributes,
  type PayloadEnvelope,
  type PayloadStatus,
} from '../../../../../src/main/node/engine/interface.js';
import { blockRefFromBlock, systemConfigFromBlock } from '../../../../../src/main/node/engine/l2Block.js';
import { batcherHashFromAddress, l1InfoDepositTx } from '../../../../../src/main/primitives/op/l1Info.js';
import type { L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { parseRollupConfig, type RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import { encodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';

export const GENESIS_L1 = `0x${'11'.repeat(32)}`;
export const GENESIS_L2 = `0x${'22'.repeat(32)}`;
export const BATCHER = `0x${'bb'.repeat(20)}`;
export const INVALID_TX = Uint8Array.of(0x02, 0xde, 0xad);

export function testConfig(extra: Record<string, unknown> = {}): RollupConfig {
  return parseRollupConfig({
    genesis: {
      l1: { hash: GENESIS_L1, number: 0 },
      l2: { hash: GENESIS_L2, number: 0 },
      l2_time: 1000,
      system_config: {
        batcherAddr: BATCHER,
        overhead: `0x${'00'.repeat(32)}`,
        scalar: `0x${'00'.repeat(31)}01`,
        gasLimit: 30_000_000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 4,
    channel_timeout: 50,
    l1_chain_id: 900,
    l2_chain_id: 901,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ecotone_time: 0,
    batch_inbox_address: `0x${'ff'.repeat(20)}`,
    deposit_contract_address: `0x${'dd'.repeat(20)}`,
    ...extra,
  });
}

/** An L1 block hash for an L1 number on a given L1 "fork" of the test. */
export function l1Hash(num: number, fork = 0): string {
  if (num === 0) return GENESIS_L1;
  return toHex(keccak256(new TextEncoder().encode(`l1:${num}:${fork}`)));
}

export function l1InfoTx(l1Number: number, seq: number, fork = 0): Uint8Array {
  return encodeDepositTx(
    l1InfoDepositTx(
      {
        number: BigInt(l1Number),
        time: BigInt(1000 + l1Number * 12),
        baseFee: 7n,
        blockHash: fromHex(l1Hash(l1Number, fork)),
        sequenceNumber: BigInt(seq),
        batcherHash: batcherHashFromAddress(fromHex(BATCHER)),
        baseFeeScalar: 5n,
        blobBaseFeeScalar: 6n,
        blobBaseFee: 1n,
      },
      'ecotone',
      true,
    ),
  );
}

/** Derived attributes for the block after `parent`, in epoch `l1Number` at position `seq`. */
export function attrs(
  cfg: RollupConfig,
  parent: L2BlockRef,
  l1Number: number,
  seq: number,
  txs: Uint8Array[] = [],
): DerivedAttributes {
  return {
    timestamp: parent.timestamp + cfg.blockTime,
    prevRandao: fromHex(l1Hash(l1Number)),
    suggestedFeeRecipient: '0x4200000000000000000000000000000000000011',
    withdrawals: [],
    parentBeaconBlockRoot: new Uint8Array(32),
    transactions: [l1InfoTx(l1Number, seq), ...txs],
    noTxPool: true,
    gasLimit: 30_000_000n,
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const u64 = (n: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
};

export class FakeEngine implements Engine {
  readonly blocks = new Map<string, L2Payload>();
  readonly calls: string[] = [];
  head: string;
  safe: string = `0x${'00'.repeat(32)}`;
  finalized: string = `0x${'00'.repeat(32)}`;
  #building = new Map<string, PayloadEnvelope>();
  #nextId = 1;

  constructor(readonly cfg: RollupConfig) {
    const genesis: ExecutionPayload = {
      parentHash: new Uint8Array(32),
      feeRecipient: new Uint8Array(20),
      stateRoot: new Uint8Array(32).fill(0x5),
      receiptsRoot: new Uint8Array(32),
      logsBloom: new Uint8Array(256),
      prevRandao: new Uint8Array(32),
      blockNumber: 0n,
      gasLimit: 30_000_000n,
      gasUsed: 0n,
      timestamp: BigInt(cfg.genesis.l2Time),
      extraData: new Uint8Array(0),
      baseFeePerGas: 1n,
      blockHash: fromHex(GENESIS_L2),
      transactions: [],
      withdrawals: [],
    };
    this.blocks.set(GENESIS_L2, { ref: this.#ref(genesis), payload: genesis });
    this.head = GENESIS_L2;
  }

  #ref(p: ExecutionPayload): L2BlockRef {
    return blockRefFromBlock(
      this.cfg,
      {
        hash: toHex(p.blockHash),
        number: Number(p.blockNumber),
        parentHash: toHex(p.parentHash),
        timestamp: Number(p.timestamp),
        gasLimit: p.gasLimit,
        extraData: p.extraData,
      },
      p.transactions[0],
    );
  }

  /** Canonical chain: walk back from the head. */
  canonical(): Map<number, string> {
    const out = new Map<number, string>();
    let h: string | undefined = this.head;
    while (h !== undefined && this.blocks.has(h)) {
      const b = this.blocks.get(h) as L2Payload;
      out.set(b.ref.number, h);
      h = b.ref.number === 0 ? undefined : b.ref.parentHash;
    }
    return out;
  }

  async newPayload(payload: ExecutionPayload, parentBeaconBlockRoot?: Uint8Array): Promise<PayloadStatus> {
    this.calls.push('newPayload');
    if (payload.transactions.some((t) => t.length === INVALID_TX.length && t.every((b, i) => b === INVALID_TX[i]))) {
      return { status: 'INVALID', latestValidHash: payload.parentHash, validationError: 'bad transaction' };
    }
    const hash = toHex(payload.blockHash);
    this.blocks.set(hash, { ref: this.#ref(payload), payload, parentBeaconBlockRoot });
    return { status: 'VALID', latestValidHash: payload.blockHash, validationError: null };
  }

  async forkchoiceUpdated(state: ForkchoiceState, a?: PayloadAttributes): Promise<ForkchoiceUpdatedResult> {
    this.calls.push(a === undefined ? 'fcu' : 'fcu+attrs');
    const head = toHex(state.headBlockHash);
    if (!this.blocks.has(head))
      return { payloadStatus: { status: 'SYNCING', latestValidHash: null, validationError: null }, payloadId: null };
    this.head = head;
    this.safe = toHex(state.safeBlockHash);
    this.finalized = toHex(state.finalizedBlockHash);
    const valid = { status: 'VALID' as const, latestValidHash: state.headBlockHash, validationError: null };
    if (a === undefined) return { payloadStatus: valid, payloadId: null };
    const parent = this.blocks.get(head) as L2Payload;
    const txs = a.transactions ?? [];
    const payload: ExecutionPayload = {
      parentHash: state.headBlockHash,
      feeRecipient: a.suggestedFeeRecipient,
      stateRoot: keccak256(concat([parent.payload.stateRoot, ...txs])),
      receiptsRoot: new Uint8Array(32),
      logsBloom: new Uint8Array(256),
      prevRandao: a.prevRandao,
      blockNumber: parent.payload.blockNumber + 1n,
      gasLimit: a.gasLimit ?? 0n,
      gasUsed: 0n,
      timestamp: a.timestamp,
      extraData: new Uint8Array(0),
      baseFeePerGas: 1n,
      blockHash: new Uint8Array(32),
      transactions: txs,
      withdrawals: a.withdrawals,
    };
    payload.blockHash = keccak256(
      concat([
        payload.parentHash,
        u64(payload.timestamp),
        payload.prevRandao,
        payload.feeRecipient,
        u64(payload.gasLimit),
        ...txs,
      ]),
    );
    const id = u64(BigInt(this.#nextId++));
    this.#building.set(toHex(id), {
      executionPayload: payload,
      blockValue: 0n,
      parentBeaconBlockRoot: a.parentBeaconBlockRoot,
    });
    return { payloadStatus: valid, payloadId: id };
  }

  async getPayload(payloadId: Uint8Array): Promise<PayloadEnvelope> {
    this.calls.push('getPayload');
    const env = this.#building.get(toHex(payloadId));
    if (env === undefined) throw new TernError('ENGINE_UNKNOWN_PAYLOAD', 'unknown payload', { severity: 'temporary' });
    return env;
  }

  #byLabel(label: L2Label): L2Payload {
    const hash = label === 'latest' ? this.head : label === 'safe' ? this.safe : this.finalized;
    const b = this.blocks.get(hash);
    if (b === undefined) throw engineNotFound(`${label} block`);
    return b;
  }

  #byNumber(num: number): L2Payload {
    const hash = this.canonical().get(num);
    const b = hash === undefined ? undefined : this.blocks.get(hash);
    if (b === undefined) throw engineNotFound(`block ${num}`);
    return b;
  }

  #byHash(hash: string): L2Payload {
    const b = this.blocks.get(hash);
    if (b === undefined) throw engineNotFound(`block ${hash}`);
    return b;
  }

  async l2BlockRefByLabel(label: L2Label): Promise<L2BlockRef> {
    return this.#byLabel(label).ref;
  }
  async l2BlockRefByNumber(num: number): Promise<L2BlockRef> {
    return this.#byNumber(num).ref;
  }
  async l2BlockRefByHash(hash: string): Promise<L2BlockRef> {
    return this.#byHash(hash).ref;
  }
  async l2BlockByNumber(num: number): Promise<L2Block> {
    const b = this.#byNumber(num);
    return { ref: b.ref, transactions: b.payload.transactions };
  }
  async payloadByNumber(num: number): Promise<L2Payload> {
    return this.#byNumber(num);
  }
  async payloadByHash(hash: string): Promise<L2Payload> {
    return this.#byHash(hash);
  }
  async systemConfigByL2Hash(hash: string) {
    const b = this.#byHash(hash);
    const p = b.payload;
    return systemConfigFromBlock(
      this.cfg,
      {
        hash,
        number: b.ref.number,
        parentHash: b.ref.parentHash,
        timestamp: b.ref.timestamp,
        gasLimit: p.gasLimit,
        extraData: p.extraData,
      },
      p.transactions[0],
    );
  }
  async outputV0AtBlock(block: number | L2Label): Promise<OutputV0> {
    const b = typeof block === 'number' ? this.#byNumber(block) : this.#byLabel(block);
    return {
      ref: b.ref,
      stateRoot: b.payload.stateRoot,
      messagePasserStorageRoot: new Uint8Array(32).fill(9),
      blockHash: b.payload.blockHash,
    };
  }
  async close(): Promise<void> {}
}

/** An engine that has only what it synced: a payload on an unknown parent is not executed (SYNCING). */
export class SyncingEngine extends FakeEngine {
  override async newPayload(payload: ExecutionPayload, root?: Uint8Array): Promise<PayloadStatus> {
    if (!this.blocks.has(toHex(payload.parentHash))) {
      this.calls.push('newPayload');
      return { status: 'SYNCING', latestValidHash: null, validationError: null };
    }
    return super.newPayload(payload, root);
  }
  /** The engine's own sync (from its peers) brought it these blocks. */
  syncFrom(source: FakeEngine, upTo: number): void {
    for (const [hash, b] of source.blocks) if (b.ref.number <= upTo) this.blocks.set(hash, b);
  }
}

/** The sequencer's chain: blocks 1..n built on a separate engine. */
export async function sequencerChain(
  cfg: RollupConfig,
  n: number,
): Promise<{ source: FakeEngine; payloads: ExecutionPayload[] }> {
  const source = new FakeEngine(cfg);
  const payloads: ExecutionPayload[] = [];
  let parent = await source.l2BlockRefByHash(GENESIS_L2);
  for (let i = 1; i <= n; i++) {
    const a = attrs(cfg, parent, 0, i);
    const fcu = await source.forkchoiceUpdated(
      {
        headBlockHash: Buffer.from(parent.hash.slice(2), 'hex'),
        safeBlockHash: new Uint8Array(32),
        finalizedBlockHash: new Uint8Array(32),
      },
      {
        timestamp: BigInt(a.timestamp),
        prevRandao: a.prevRandao,
        suggestedFeeRecipient: a.suggestedFeeRecipient,
        transactions: a.transactions,
        noTxPool: true,
        gasLimit: a.gasLimit,
        withdrawals: [],
      } as never,
    );
    const env = await source.getPayload(fcu.payloadId!);
    await source.newPayload(env.executionPayload);
    payloads.push(env.executionPayload);
    parent = await source.l2BlockRefByHash(toHex(env.executionPayload.blockHash));
  }
  return { source, payloads };
}
