// Scripted layer-1 and layer-2 sides for the derivation stage tests: really signed L1 transactions (secp256k1), an
// L1 chain of blocks with receipts that can be reorged, a blob source, an L2 chain that records what derivation
// hands it as accepted blocks, and the batcher side (channels, frames, calldata) built with the production encoders.
import { createRequire } from 'node:module';
import { TernError } from '../../../../../src/main/common/errors.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import type { PipelineL1, PipelineL2 } from '../../../../../src/main/node/derive/pipeline.js';
import {
  type AttributesWithParent,
  fromHex,
  type L2BlockRef,
  type SystemConfig,
  toHex,
} from '../../../../../src/main/node/derive/types.js';
import { blockRefFromBlock, systemConfigFromBlock } from '../../../../../src/main/node/engine/l2Block.js';
import type {
  BlobSource,
  Hex,
  IndexedBlobHash,
  L1BlockInfo,
  L1BlockRef,
  L1Transaction,
} from '../../../../../src/main/node/l1/interface.js';
import type { Header } from '../../../../../src/main/primitives/block/header.js';
import { decodeEip1559Params, encodeHoloceneExtraData } from '../../../../../src/main/primitives/op/eip1559.js';
import type { Log, Receipt } from '../../../../../src/main/primitives/receipt/receipt.js';
import { type RlpInput, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { isHolocene, type RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import { decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import type { BatchData } from '../../../../../src/main/protocol/batch/batchCodec.js';
import { encodeBatchData } from '../../../../../src/main/protocol/batch/batchCodec.js';
import type { SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';
import { SpanBatchBuilder } from '../../../../../src/main/protocol/batch/spanBatch.js';
import { ChannelOut, type CompressionAlgo } from '../../../../../src/main/protocol/channel/channel.js';
import { encodeBatcherData, type Frame } from '../../../../../src/main/protocol/channel/frame.js';

interface Secp {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(key: Uint8Array, compressed: boolean): Uint8Array;
}
const secp = createRequire(import.meta.url)('secp256k1') as Secp;

export function privKey(n: number): Uint8Array {
  const k = new Uint8Array(32);
  k[31] = n;
  k[0] = 0x11;
  return k;
}

export function addressOf(key: Uint8Array): string {
  return toHex(keccak256(secp.publicKeyCreate(key, false).subarray(1)).slice(12));
}

function big(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(toHex(b));
}

export interface TxOpts {
  type?: 0 | 2 | 3 | 4;
  chainId: bigint;
  nonce?: bigint;
  to?: string | undefined;
  data?: Uint8Array;
  value?: bigint;
  gas?: bigint;
  blobHashes?: string[];
}

/** Signs a legacy (EIP-155), 1559, 4844 or 7702 transaction and returns its consensus encoding. */
export function signTx(key: Uint8Array, o: TxOpts): Uint8Array {
  const type = o.type ?? 2;
  const to: RlpInput = o.to === undefined ? new Uint8Array(0) : fromHex(o.to);
  const nonce = o.nonce ?? 0n;
  const gas = o.gas ?? 100_000n;
  const data = o.data ?? new Uint8Array(0);
  const value = o.value ?? 0n;
  if (type === 0) {
    const unsigned: RlpInput[] = [nonce, 1_000_000_000n, gas, to, value, data];
    const h = keccak256(rlpEncode([...unsigned, o.chainId, 0n, 0n]));
    const sig = secp.ecdsaSign(h, key);
    const v = o.chainId * 2n + 35n + BigInt(sig.recid);
    return rlpEncode([...unsigned, v, big(sig.signature.subarray(0, 32)), big(sig.signature.subarray(32))]);
  }
  let fields: RlpInput[] = [o.chainId, nonce, 1_000_000_000n, 2_000_000_000n, gas, to, value, data, []];
  if (type === 3) fields = [...fields, 1_000_000_000n, (o.blobHashes ?? []).map(fromHex)];
  if (type === 4) fields = [...fields, []];
  const pre = (body: RlpInput[]) => {
    const enc = rlpEncode(body);
    const out = new Uint8Array(enc.length + 1);
    out[0] = type;
    out.set(enc, 1);
    return out;
  };
  const sig = secp.ecdsaSign(keccak256(pre(fields)), key);
  return pre([...fields, BigInt(sig.recid), big(sig.signature.subarray(0, 32)), big(sig.signature.subarray(32))]);
}

export const notFound = (what: string) =>
  new TernError('L1_NOT_FOUND', `L1 ${what} not found`, { severity: 'temporary' });

export interface FakeL1Block {
  ref: L1BlockRef;
  header: Header;
  txs: L1Transaction[];
  receipts: Receipt[];
}

function header(number: number, timestamp: number, parentHash: string, mix: Uint8Array): Header {
  return {
    parentHash: fromHex(parentHash),
    uncleHash: new Uint8Array(32),
    coinbase: new Uint8Array(20),
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: BigInt(number),
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: BigInt(timestamp),
    extraData: new Uint8Array(0),
    mixHash: mix,
    nonce: new Uint8Array(8),
    baseFeePerGas: 7n + BigInt(number),
    withdrawalsRoot: new Uint8Array(32),
    blobGasUsed: 0n,
    excessBlobGas: BigInt(number) * 1_000_000n,
    parentBeaconBlockRoot: keccak256(Uint8Array.of(0xbe, number & 0xff, (number >> 8) & 0xff)),
  };
}

export interface BlockScript {
  /** Raw signed transactions. */
  txs?: Uint8Array[];
  /** Extra logs, each put in a successful receipt of its own (appended after the txs' receipts). */
  logs?: Log[];
  /** Logs of a failed receipt (must be ignored). */
  failedLogs?: Log[];
  timestamp?: number;
}

/** An L1 chain of scripted blocks; hashes depend on a fork tag so `reorgFrom` makes a different chain. */
export class FakeL1 implements PipelineL1 {
  blocks: FakeL1Block[] = [];
  private byHash = new Map<string, FakeL1Block>();
  /** The highest block number served by number (simulates the head). */
  head = Number.POSITIVE_INFINITY;
  calls: string[] = [];
  private tag = 0;

  constructor(
    readonly genesisNumber: number,
    readonly genesisTime: number,
    readonly blockTime = 12,
  ) {}

  /** Appends a block built from `s` at the next number. */
  add(s: BlockScript = {}): FakeL1Block {
    const prev = this.blocks[this.blocks.length - 1];
    const number = prev === undefined ? this.genesisNumber : prev.ref.number + 1;
    const timestamp = s.timestamp ?? (prev === undefined ? this.genesisTime : prev.ref.timestamp + this.blockTime);
    const parentHash = prev?.ref.hash ?? `0x${'00'.repeat(32)}`;
    const hash = toHex(keccak256(new TextEncoder().encode(`l1:${this.tag}:${number}:${parentHash}`))) as Hex;
    const txs = (s.txs ?? []).map((raw) => decodeTransaction(raw));
    const receipts: Receipt[] = txs.map((t) => ({
      type: t.type,
      status: 1,
      cumulativeGasUsed: 0n,
      logsBloom: new Uint8Array(256),
      logs: [],
    }));
    for (const l of s.logs ?? [])
      receipts.push({ type: 2, status: 1, cumulativeGasUsed: 0n, logsBloom: new Uint8Array(256), logs: [l] });
    if (s.failedLogs !== undefined) {
      receipts.push({ type: 2, status: 0, cumulativeGasUsed: 0n, logsBloom: new Uint8Array(256), logs: s.failedLogs });
    }
    const ref: L1BlockRef = { hash, number, parentHash: parentHash as Hex, timestamp };
    const b: FakeL1Block = {
      ref,
      header: header(number, timestamp, parentHash, keccak256(fromHex(hash))),
      txs,
      receipts,
    };
    this.blocks.push(b);
    this.byHash.set(hash, b);
    return b;
  }

  /** Drops every block from `number` on and starts a different chain there (the old blocks stay known by hash). */
  reorgFrom(number: number): void {
    this.tag++;
    this.blocks = this.blocks.filter((b) => b.ref.number < number);
  }

  block(number: number): FakeL1Block {
    const b = this.blocks.find((x) => x.ref.number === number);
    if (b === undefined) throw new Error(`no L1 block ${number}`);
    return b;
  }

  private get(hash: string): FakeL1Block {
    const b = this.byHash.get(hash);
    if (b === undefined) throw notFound(`block ${hash}`);
    return b;
  }

  private info(b: FakeL1Block): L1BlockInfo {
    return { ...b.ref, header: b.header };
  }

  async blockRefByLabel(): Promise<L1BlockRef> {
    const b = this.blocks[this.blocks.length - 1];
    if (b === undefined) throw notFound('head');
    return b.ref;
  }

  async blockRefByNumber(num: number): Promise<L1BlockRef> {
    this.calls.push(`byNumber:${num}`);
    const b = this.blocks.find((x) => x.ref.number === num);
    if (b === undefined || num > this.head) throw notFound(`block ${num}`);
    return b.ref;
  }

  async blockRefByHash(hash: Hex): Promise<L1BlockRef> {
    return this.get(hash).ref;
  }

  async infoByHash(hash: Hex): Promise<L1BlockInfo> {
    return this.info(this.get(hash));
  }

  async infoAndTxsByHash(hash: Hex): Promise<{ info: L1BlockInfo; txs: L1Transaction[] }> {
    this.calls.push(`txs:${hash}`);
    const b = this.get(hash);
    return { info: this.info(b), txs: b.txs };
  }

  async fetchReceipts(hash: Hex): Promise<{ info: L1BlockInfo; receipts: Receipt[] }> {
    this.calls.push(`receipts:${hash}`);
    const b = this.get(hash);
    return { info: this.info(b), receipts: b.receipts };
  }
}

/** Blobs by versioned hash; records every request. */
export class FakeBlobs implements Pick<BlobSource, 'getBlobs'> {
  blobs = new Map<string, Uint8Array>();
  requests: Array<{ block: number; hashes: IndexedBlobHash[] }> = [];

  async getBlobs(ref: L1BlockRef, hashes: readonly IndexedBlobHash[]): Promise<Uint8Array[]> {
    this.requests.push({ block: ref.number, hashes: [...hashes] });
    return hashes.map((h) => {
      const b = this.blobs.get(h.hash.toLowerCase());
      if (b === undefined) throw new TernError('BLOB_NOT_FOUND', `blob ${h.hash}`, { severity: 'temporary' });
      return b;
    });
  }
}

/** A fake versioned hash for a blob (0x01 ++ 31 bytes of keccak): unit tests do not verify KZG. */
export function fakeVersionedHash(blob: Uint8Array): string {
  const h = keccak256(blob);
  h[0] = 1;
  return toHex(h);
}

/** L2 block hashes depend only on number and time, so a batcher can name parents before the blocks exist. */
export function l2Hash(number: number, timestamp: number): string {
  return toHex(keccak256(new TextEncoder().encode(`l2:${number}:${timestamp}`)));
}

export interface L2Block {
  ref: L2BlockRef;
  attributes: AttributesWithParent['attributes'] | undefined;
  transactions: Uint8Array[];
  extraData: Uint8Array;
  gasLimit: bigint;
}

/** An L2 chain that accepts derived attributes as blocks (refs and system config as an engine would report them). */
export class FakeL2 implements PipelineL2 {
  blocks: L2Block[] = [];
  private byHash = new Map<string, L2Block>();

  constructor(private readonly cfg: RollupConfig) {
    const g = cfg.genesis;
    const ref: L2BlockRef = {
      hash: g.l2.hash,
      number: g.l2.number,
      parentHash: `0x${'00'.repeat(32)}`,
      timestamp: g.l2Time,
      l1origin: { ...g.l1 },
      sequenceNumber: 0,
    };
    this.push({
      ref,
      attributes: undefined,
      transactions: [],
      extraData: new Uint8Array(0),
      gasLimit: g.systemConfig.gasLimit,
    });
  }

  private push(b: L2Block): void {
    this.blocks.push(b);
    this.byHash.set(b.ref.hash, b);
  }

  get head(): L2BlockRef {
    return (this.blocks[this.blocks.length - 1] as L2Block).ref;
  }

  /** Makes the attributes the next block (they must build on the head); returns its ref. */
  accept(a: AttributesWithParent): L2BlockRef {
    const parent = this.head;
    if (a.parent.hash !== parent.hash) throw new Error(`attributes build on ${a.parent.hash}, head is ${parent.hash}`);
    const attrs = a.attributes;
    const hash = l2Hash(parent.number + 1, attrs.timestamp);
    let extraData: Uint8Array = new Uint8Array(0);
    if (isHolocene(this.cfg, attrs.timestamp)) {
      extraData = encodeHoloceneExtraData(decodeEip1559Params(attrs.eip1559Params ?? new Uint8Array(8)));
    }
    const fields = {
      hash,
      number: parent.number + 1,
      parentHash: parent.hash,
      timestamp: attrs.timestamp,
      gasLimit: attrs.gasLimit,
      extraData,
    };
    const ref = blockRefFromBlock(this.cfg, fields, attrs.transactions[0]);
    this.push({ ref, attributes: attrs, transactions: attrs.transactions, extraData, gasLimit: attrs.gasLimit });
    return ref;
  }

  /** Drops blocks after `number` (to re-derive after a reset). */
  rewind(number: number): void {
    this.blocks = this.blocks.filter((b) => b.ref.number <= number);
  }

  private at(num: number): L2Block {
    const b = this.blocks.find((x) => x.ref.number === num);
    if (b === undefined) throw new TernError('ENGINE_NOT_FOUND', `L2 block ${num}`, { severity: 'temporary' });
    return b;
  }

  async l2BlockRefByHash(hash: string): Promise<L2BlockRef> {
    const b = this.byHash.get(hash);
    if (b === undefined) throw new TernError('ENGINE_NOT_FOUND', `L2 block ${hash}`, { severity: 'temporary' });
    return b.ref;
  }

  async l2BlockRefByNumber(num: number): Promise<L2BlockRef> {
    return this.at(num).ref;
  }

  async l2BlockByNumber(num: number): Promise<{ ref: L2BlockRef; transactions: readonly Uint8Array[] }> {
    const b = this.at(num);
    return { ref: b.ref, transactions: b.transactions };
  }

  async systemConfigByL2Hash(hash: string): Promise<SystemConfig> {
    const b = this.byHash.get(hash);
    if (b === undefined) throw new TernError('ENGINE_NOT_FOUND', `L2 block ${hash}`, { severity: 'temporary' });
    return systemConfigFromBlock(
      this.cfg,
      { ...b.ref, gasLimit: b.gasLimit, extraData: b.extraData },
      b.transactions[0],
    );
  }
}

// ---- batcher side ----

/** A channel of the given batches, cut into frames of at most `maxFrameSize` bytes. */
export function channelFrames(
  batches: readonly BatchData[],
  opts: { compression?: CompressionAlgo; id?: Uint8Array; maxFrameSize?: number } = {},
): Frame[] {
  const ch = new ChannelOut({ compression: opts.compression ?? 'zlib', ...(opts.id ? { id: opts.id } : {}) });
  for (const b of batches) ch.addBatch(encodeBatchData(b));
  return ch.frames(opts.maxFrameSize ?? 100_000);
}

export function singular(b: SingularBatch): BatchData {
  return { type: 0, batch: b };
}

/** A span batch of consecutive singular batches (the first with sequence number `firstSeq`). */
export function span(cfg: RollupConfig, batches: readonly SingularBatch[], firstSeq = 1): BatchData {
  const builder = new SpanBatchBuilder(cfg.genesis.l2Time, cfg.l2ChainId);
  for (const [i, b] of batches.entries()) builder.append(b, i === 0 ? firstSeq : 1);
  return { type: 1, batch: builder.toRaw() };
}

/** Calldata of one batcher transaction carrying `frames`. */
export function batcherData(frames: readonly Frame[]): Uint8Array {
  return encodeBatcherData(frames);
}

/** A signed L2 user transaction (for batches). */
export function l2UserTx(cfg: RollupConfig, key: Uint8Array, nonce: number, type: 0 | 2 | 4 = 2): Uint8Array {
  return signTx(key, {
    type,
    chainId: cfg.l2ChainId,
    nonce: BigInt(nonce),
    to: `0x${'42'.repeat(20)}`,
    value: 1n,
    gas: 21_000n,
  });
}
