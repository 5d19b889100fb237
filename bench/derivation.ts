// Derivation throughput (issue 7, item 8): L2 blocks per second out of one large span-batch channel. Workload
// (built outside the timed part): 2,400 L2 blocks of 3 signed EIP-1559 transfers each, 6 blocks per L1 epoch (401
// L1 origins), one span batch in one brotli (Fjord) channel included in the L1 block after the last epoch; all forks
// up to Isthmus active from genesis, so the Holocene batch stage rules apply. Timed, per stage: (1) the channel
// reader (brotli decompression, RLP, span batch decode, rebuilding the signed transactions; again with the brotli
// stream decompressed on the one-thread decompression pool, as tern-node runs it), (2) span → singular
// batches, (3) batch validation as the Holocene batch stage does it (span prefix once, then per block: origin
// window pruning, parent hash, singular batch rules), (4) payload attributes per block (L1-info deposit, system
// config); then end to end through the real stages chained: ChannelReader → BatchStage → AttributesQueue with the
// AttributesBuilder. Fakes serve only the L1 (headers, receipts) and L2 (block refs, system config) reads; the
// engine's part (building each block) is not included: parent refs are precomputed.
import { createRequire } from 'node:module';
import { keccak256 } from '../src/main/native/keccak.js';
import { AttributesBuilder } from '../src/main/node/derive/attributesBuilder.js';
import { AttributesQueue } from '../src/main/node/derive/attributesQueue.js';
import { BatchStage } from '../src/main/node/derive/batchStage.js';
import {
  checkSingularBatch,
  checkSpanBatchPrefix,
  type SafeBlockFetcher,
  spanToSingularBatches,
} from '../src/main/node/derive/batchValidator.js';
import { ChannelReader, type ChannelReaderDeps, type DecodedBatch } from '../src/main/node/derive/channelReader.js';
import { createDecompressPool, PooledChannelDecompressor } from '../src/main/node/derive/decompressPooled.js';
import { systemConfigFromGenesis } from '../src/main/node/derive/systemConfig.js';
import {
  fromHex,
  type L1BlockRef,
  type L2BlockRef,
  type PayloadAttributes,
  type SystemConfig,
  toHex,
} from '../src/main/node/derive/types.js';
import type { Hex, L1BlockInfo } from '../src/main/node/l1/interface.js';
import type { Header } from '../src/main/primitives/block/header.js';
import type { Receipt } from '../src/main/primitives/receipt/receipt.js';
import { type RlpInput, rlpEncode } from '../src/main/primitives/rlp.js';
import { parseRollupConfig, type RollupConfig } from '../src/main/primitives/rollup/config.js';
import { encodeBatchData } from '../src/main/protocol/batch/batchCodec.js';
import type { SingularBatch } from '../src/main/protocol/batch/singularBatch.js';
import { type SpanBatch, SpanBatchBuilder } from '../src/main/protocol/batch/spanBatch.js';
import { ChannelOut } from '../src/main/protocol/channel/channel.js';
import type { BenchRow, BenchSuite } from './suite.js';

const BLOCKS = 2400;
const TXS_PER_BLOCK = 3;
const PER_EPOCH = 6; // L2 block time 2 s, L1 block time 12 s
const ROUNDS = 5;
const G = 1_700_000_000;
const L1_GENESIS = 100;

interface Secp {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}
const secp = createRequire(import.meta.url)('secp256k1') as Secp;

const hashOf = (s: string): Hex => toHex(keccak256(new TextEncoder().encode(s))) as Hex;
const big = (b: Uint8Array): bigint => BigInt(toHex(b));

function config(l1GenesisHash: string): RollupConfig {
  return parseRollupConfig({
    genesis: {
      l1: { hash: l1GenesisHash, number: L1_GENESIS },
      l2: { hash: hashOf('l2:0'), number: 0 },
      l2_time: G,
      system_config: {
        batcherAddr: `0x${'ba'.repeat(20)}`,
        overhead: `0x${'00'.repeat(32)}`,
        scalar: `0x01${'00'.repeat(23)}00000457${'00000d05'}`,
        gasLimit: 30_000_000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 3600,
    channel_timeout: 300,
    l1_chain_id: 900,
    l2_chain_id: 901,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ecotone_time: 0,
    fjord_time: 0,
    granite_time: 0,
    holocene_time: 0,
    isthmus_time: 0,
    batch_inbox_address: `0x${'ff'.repeat(19)}01`,
    deposit_contract_address: `0x${'de'.repeat(20)}`,
    l1_system_config_address: `0x${'5c'.repeat(20)}`,
  });
}

/** A signed EIP-1559 transfer on L2 (consensus encoding). */
function transfer(chainId: bigint, key: Uint8Array, nonce: number): Uint8Array {
  const fields: RlpInput[] = [
    chainId,
    BigInt(nonce),
    1_000_000n,
    2_000_000_000n,
    21_000n,
    keccak256(key).subarray(0, 20),
    1_000_000_000_000n + BigInt(nonce),
    new Uint8Array(0),
    [],
  ];
  const typed = (body: RlpInput[]) => Uint8Array.of(2, ...rlpEncode(body));
  const sig = secp.ecdsaSign(keccak256(typed(fields)), key);
  return typed([...fields, BigInt(sig.recid), big(sig.signature.subarray(0, 32)), big(sig.signature.subarray(32))]);
}

function l1Header(number: number, timestamp: number, parentHash: string, hash: string): Header {
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
    mixHash: keccak256(fromHex(hash)),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000_000n + BigInt(number),
    withdrawalsRoot: new Uint8Array(32),
    blobGasUsed: 0n,
    excessBlobGas: BigInt(number) * 100_000n,
    parentBeaconBlockRoot: keccak256(fromHex(parentHash)),
  };
}

interface Workload {
  cfg: RollupConfig;
  /** L1 blocks from the L2 genesis origin to the channel's inclusion block. */
  l1: L1BlockRef[];
  l1Info: Map<string, L1BlockInfo>;
  inclusion: L1BlockRef;
  /** L2 block refs 0..BLOCKS (what the engine would report after each block). */
  l2: L2BlockRef[];
  channel: Uint8Array;
  rlpBytes: number;
  txs: number;
}

function buildWorkload(): Workload {
  const epochs = Math.floor(BLOCKS / PER_EPOCH) + 1;
  const l1: L1BlockRef[] = [];
  const l1Info = new Map<string, L1BlockInfo>();
  for (let i = 0; i <= epochs; i++) {
    const number = L1_GENESIS + i;
    const parentHash = (l1[i - 1]?.hash ?? `0x${'00'.repeat(32)}`) as Hex;
    const hash = hashOf(`l1:${number}`);
    const ref: L1BlockRef = { hash, number, parentHash, timestamp: G + 12 * i };
    l1.push(ref);
    l1Info.set(hash, { ...ref, hash, parentHash, header: l1Header(number, ref.timestamp, parentHash, hash) });
  }
  const cfg = config((l1[0] as L1BlockRef).hash);
  const inclusion = l1[epochs] as L1BlockRef;
  const l2: L2BlockRef[] = [];
  const keys = Array.from({ length: 64 }, (_, i) => keccak256(Uint8Array.of(0x5e, i)));
  const nonces = new Array<number>(keys.length).fill(0);
  const builder = new SpanBatchBuilder(cfg.genesis.l2Time, cfg.l2ChainId);
  let txs = 0;
  for (let n = 0; n <= BLOCKS; n++) {
    const epoch = l1[Math.floor(n / PER_EPOCH)] as L1BlockRef;
    const ref: L2BlockRef = {
      hash: hashOf(`l2:${n}`),
      number: n,
      parentHash: n === 0 ? `0x${'00'.repeat(32)}` : (l2[n - 1] as L2BlockRef).hash,
      timestamp: G + 2 * n,
      l1origin: { number: epoch.number, hash: epoch.hash },
      sequenceNumber: n % PER_EPOCH,
    };
    l2.push(ref);
    if (n === 0) continue;
    const transactions: Uint8Array[] = [];
    for (let t = 0; t < TXS_PER_BLOCK; t++) {
      const k = (n * TXS_PER_BLOCK + t) % keys.length;
      transactions.push(transfer(cfg.l2ChainId, keys[k] as Uint8Array, (nonces[k] as number)++));
    }
    txs += transactions.length;
    const batch: SingularBatch = {
      parentHash: fromHex(ref.parentHash),
      epochNum: epoch.number,
      epochHash: fromHex(epoch.hash),
      timestamp: ref.timestamp,
      transactions,
    };
    builder.append(batch, ref.sequenceNumber);
  }
  const out = new ChannelOut({ compression: 'brotli' });
  const typed = encodeBatchData({ type: 1, batch: builder.toRaw() });
  out.addBatch(typed);
  return { cfg, l1, l1Info, inclusion, l2, channel: out.compressed(), rlpBytes: out.inputBytes, txs };
}

/** The L1 and L2 reads derivation makes, served from memory. */
function providers(w: Workload) {
  const sc: SystemConfig = systemConfigFromGenesis(w.cfg.genesis.systemConfig);
  const byHash = new Map(w.l2.map((r) => [r.hash, r]));
  const noReceipts: Receipt[] = [];
  const info = (hash: string): L1BlockInfo => {
    const i = w.l1Info.get(hash);
    if (i === undefined) throw new Error(`no L1 block ${hash}`);
    return i;
  };
  const l1 = {
    infoByHash: async (hash: Hex) => info(hash),
    fetchReceipts: async (hash: Hex) => ({ info: info(hash), receipts: noReceipts }),
  };
  const l2: SafeBlockFetcher & { systemConfigByL2Hash(hash: string): Promise<SystemConfig> } = {
    l2BlockRefByNumber: async (num) => w.l2[num] as L2BlockRef,
    l2BlockByNumber: async (num) => ({ ref: w.l2[num] as L2BlockRef, transactions: [] }),
    systemConfigByL2Hash: async (hash) => {
      if (!byHash.has(hash)) throw new Error(`no L2 block ${hash}`);
      return sc;
    },
  };
  return { l1, l2 };
}

/** The channel bank's output: the one channel, seen at its inclusion block. */
function channelSource(w: Workload) {
  let given = false;
  return {
    origin: () => w.inclusion,
    nextData: async () => {
      if (given) return undefined;
      given = true;
      return w.channel;
    },
  };
}

async function decodeStage(w: Workload, deps: ChannelReaderDeps = {}): Promise<SpanBatch> {
  const reader = new ChannelReader(w.cfg, channelSource(w), deps);
  const b: DecodedBatch | undefined = await reader.nextBatch();
  if (b?.type !== 'span' || b.batch.batches.length !== BLOCKS) throw new Error('channel did not decode to the span');
  if ((await reader.nextBatch()) !== undefined) throw new Error('channel has more than one batch');
  return b.batch;
}

function expandStage(w: Workload, span: SpanBatch): SingularBatch[] {
  const singles = spanToSingularBatches(span, w.l1, w.l2[0] as L2BlockRef);
  if (!Array.isArray(singles) || singles.length !== BLOCKS) throw new Error('span did not expand');
  return singles;
}

/** The Holocene batch stage's checks: the span prefix, then each block on its parent with the origin window. */
async function validateStage(w: Workload, span: SpanBatch, singles: SingularBatch[]): Promise<SingularBatch[]> {
  const { l2 } = providers(w);
  let l1Blocks = w.l1;
  const safe = w.l2[0] as L2BlockRef;
  const prefix = await checkSpanBatchPrefix(w.cfg, l1Blocks, safe, span, w.inclusion, l2);
  if (prefix.validity !== 'accept') throw new Error(`span prefix: ${prefix.reason}`);
  const out: SingularBatch[] = [];
  for (let i = 0; i < singles.length; i++) {
    const parent = w.l2[i] as L2BlockRef;
    const first = l1Blocks[0] as L1BlockRef;
    if (parent.l1origin.number > first.number) {
      const at = l1Blocks.findIndex((b) => b.number === parent.l1origin.number);
      if (at >= 0) l1Blocks = l1Blocks.slice(at);
    }
    const batch = { ...(singles[i] as SingularBatch), parentHash: fromHex(parent.hash) };
    const v = checkSingularBatch(w.cfg, l1Blocks, parent, batch, w.inclusion);
    if (v.validity !== 'accept') throw new Error(`block ${i + 1}: ${v.validity} ${v.reason}`);
    out.push(batch);
  }
  return out;
}

async function attributesStage(w: Workload, batches: SingularBatch[]): Promise<PayloadAttributes[]> {
  const { l1, l2 } = providers(w);
  const builder = new AttributesBuilder(w.cfg, l1, l2);
  const out: PayloadAttributes[] = [];
  for (let i = 0; i < batches.length; i++) {
    const b = batches[i] as SingularBatch;
    const a = await builder.prepare(w.l2[i] as L2BlockRef, { number: b.epochNum, hash: toHex(b.epochHash) });
    a.transactions.push(...b.transactions);
    out.push(a);
  }
  return out;
}

/** The real stages chained (what DerivationPipeline runs after the channel bank), one block per call. */
async function endToEnd(w: Workload): Promise<number> {
  const { l1, l2 } = providers(w);
  const reader = new ChannelReader(w.cfg, channelSource(w));
  const stage = new BatchStage(w.cfg, reader, l2);
  stage.reset(w.inclusion);
  // As after L1 traversal walked from the safe head's origin to the inclusion block.
  stage.l1Blocks = [...w.l1];
  const queue = new AttributesQueue(w.cfg, new AttributesBuilder(w.cfg, l1, l2), stage);
  let n = 0;
  for (;;) {
    const a = await queue.nextAttributes(w.l2[n] as L2BlockRef);
    if (a === undefined) break;
    if (a.attributes.timestamp !== (w.l2[n + 1] as L2BlockRef).timestamp) throw new Error(`block ${n + 1} misplaced`);
    if (a.attributes.transactions.length !== 1 + TXS_PER_BLOCK) throw new Error(`block ${n + 1} lost transactions`);
    n++;
    if (n === BLOCKS) break;
  }
  if (n !== BLOCKS) throw new Error(`end to end derived ${n} of ${BLOCKS} blocks`);
  return n;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function run(): Promise<BenchRow[]> {
  const w = buildWorkload();
  const stages = ['decode', 'decodePooled', 'expand', 'validate', 'attributes', 'e2e'] as const;
  const times: Record<(typeof stages)[number], number[]> = {
    decode: [],
    decodePooled: [],
    expand: [],
    validate: [],
    attributes: [],
    e2e: [],
  };
  const pool = createDecompressPool({ threads: 1 });
  const pooled = { decompress: new PooledChannelDecompressor(pool).decompress };
  for (let r = 0; r <= ROUNDS; r++) {
    const d = await timed(() => decodeStage(w));
    const dp = await timed(() => decodeStage(w, pooled));
    const e = await timed(async () => expandStage(w, d.value));
    const v = await timed(() => validateStage(w, d.value, e.value));
    const a = await timed(() => attributesStage(w, v.value));
    if (a.value.length !== BLOCKS) throw new Error('attributes missing');
    const all = await timed(() => endToEnd(w));
    if (r === 0) continue; // warm-up round
    times.decode.push(d.ms);
    times.decodePooled.push(dp.ms);
    times.expand.push(e.ms);
    times.validate.push(v.ms);
    times.attributes.push(a.ms);
    times.e2e.push(all.ms);
  }
  await pool.close();
  const labels: Record<(typeof stages)[number], string> = {
    decode: 'channel read: brotli + RLP + span decode',
    decodePooled: 'channel read, brotli on the decompress pool',
    expand: 'span → singular batches',
    validate: 'batch validation (Holocene stage rules)',
    attributes: 'payload attributes (AttributesBuilder)',
    e2e: 'end to end: reader → batch stage → attrs',
  };
  const workload = `${BLOCKS} blocks, ${w.txs} txs, channel ${w.channel.length} B brotli / ${w.rlpBytes} B RLP`;
  return stages.map((s) => {
    const ts = times[s];
    const mean = ts.reduce((x, y) => x + y, 0) / ts.length;
    return {
      task: labels[s],
      opsPerSec: (BLOCKS * 1000) / mean,
      meanMicros: (mean * 1000) / BLOCKS,
      note: `${mean.toFixed(1)} ms per channel (min ${Math.min(...ts).toFixed(1)}), ${ROUNDS} rounds; ${workload}`,
    };
  });
}

export const derivationSuite: BenchSuite = { name: 'derivation', run };
