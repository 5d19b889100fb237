import { describe, expect, it } from 'vitest';
import type { ChannelConfig } from '../../../../src/main/batcher/channelBuilder.js';
import { ChannelBuilder } from '../../../../src/main/batcher/channelBuilder.js';
import { ChannelManager, type TxData } from '../../../../src/main/batcher/channelManager.js';
import { batcherPayload } from '../../../../src/main/batcher/l1Tx.js';
import { type L2Block, l2BlockFromRpc } from '../../../../src/main/batcher/l2Block.js';
import { createLogger } from '../../../../src/main/common/logger/index.js';
import { decodeBlobData, MAX_BLOB_DATA_SIZE } from '../../../../src/main/protocol/blob/blobData.js';
import { parseFrames } from '../../../../src/main/protocol/channel/frame.js';
import { decodeBatches } from './decodeBatches.js';
import { type Epoch, fakeL2Chain, L2_CHAIN_ID, userTxsOf } from './l2Fixtures.js';

const logger = createLogger({ level: 'silent', format: 'logfmt', stream: { write: () => true } }).logger;
const GENESIS_TIME = 1_700_000_000;
const BLOCK_TIME = 2;
const chain = { blockTime: BLOCK_TIME, genesisTime: GENESIS_TIME, chainId: L2_CHAIN_ID };
const epochs: Epoch[] = Array.from({ length: 10 }, (_, i) => ({
  number: 100 + i,
  hash: `0x${(i + 1).toString(16).padStart(64, 'a')}`,
  time: GENESIS_TIME + i * 12,
}));

function config(over: Partial<ChannelConfig> = {}): ChannelConfig {
  return {
    compression: 'zlib',
    level: 9,
    spanBatches: false,
    genesisTime: GENESIS_TIME,
    chainId: L2_CHAIN_ID,
    maxFrameSize: 119_999,
    targetNumFrames: 1,
    compressor: 'shadow',
    approxComprRatio: 0.6,
    maxRlpBytes: 10_000_000,
    useBlobs: false,
    channelTimeout: 50,
    seqWindowSize: 3600,
    subSafetyMargin: 10,
    maxChannelDuration: 0,
    ...over,
  };
}

async function chainOf(count: number, opts: { txs?: number; dataBytes?: number; seed?: string } = {}) {
  const json = await fakeL2Chain({
    count,
    first: 1,
    parentHash: `0x${'11'.repeat(32)}`,
    timestamp0: GENESIS_TIME + BLOCK_TIME,
    blockTime: BLOCK_TIME,
    epochOf: (i) => epochs[Math.floor(i / 3)] as Epoch,
    txs: () => opts.txs ?? 2,
    ...(opts.dataBytes ? { dataBytes: opts.dataBytes } : {}),
    seed: opts.seed ?? 'x',
  });
  return { json, blocks: json.map(l2BlockFromRpc) };
}

/** Takes every TxData until none is left, closing the open channel at the end. */
function drain(cm: ChannelManager, head = { number: 200, timestamp: GENESIS_TIME + 1000 }): TxData[] {
  const out: TxData[] = [];
  for (let tx = cm.nextTxData(head); tx !== undefined; tx = cm.nextTxData(head)) out.push(tx);
  for (let tx = cm.forceClose(head); tx !== undefined; tx = cm.nextTxData(head)) out.push(tx);
  return out;
}

function payloads(txs: readonly TxData[]): Uint8Array[] {
  return txs.flatMap((t) => {
    const p = batcherPayload(t);
    return t.useBlobs ? p.blobs.map(decodeBlobData) : [p.calldata];
  });
}

function expectMatches(
  decoded: Awaited<ReturnType<typeof decodeBatches>>,
  json: Record<string, unknown>[],
  blocks: L2Block[],
) {
  expect(decoded.map((d) => d.timestamp)).toEqual(blocks.map((b) => b.timestamp));
  expect(decoded.map((d) => d.epochNum)).toEqual(blocks.map((b) => b.l1Origin.number));
  expect(decoded.map((d) => d.txHashes)).toEqual(json.map(userTxsOf));
}

describe('channels: L2 blocks → frames → derivation decoders → batches', () => {
  it('singular batches, zlib, one frame per calldata tx', async () => {
    const { json, blocks } = await chainOf(7);
    const cm = new ChannelManager(() => config(), { logger });
    for (const b of blocks) cm.addL2Block(b);
    const txs = drain(cm);
    expect(txs).toHaveLength(1);
    const decoded = await decodeBatches(payloads(txs), chain);
    expectMatches(decoded, json, blocks);
    expect(decoded.map((d) => d.parentHash)).toEqual(blocks.map((b) => b.parentHash));
    expect(decoded.map((d) => d.epochHash)).toEqual(blocks.map((b) => b.l1Origin.hash));
    expect(decoded.every((d) => d.batchType === 0 && d.compression === 'zlib')).toBe(true);
  });

  it('span batches with brotli round trip', async () => {
    const { json, blocks } = await chainOf(9, { txs: 3 });
    const cm = new ChannelManager(() => config({ spanBatches: true, compression: 'brotli', level: 10 }), { logger });
    for (const b of blocks) cm.addL2Block(b);
    const decoded = await decodeBatches(payloads(drain(cm)), chain);
    expectMatches(decoded, json, blocks);
    expect(decoded.every((d) => d.batchType === 1 && d.compression === 'brotli')).toBe(true);
  });

  it('splits a channel into frames that respect the max tx size, numbered in order', async () => {
    const { json, blocks } = await chainOf(6, { dataBytes: 3000 });
    const cm = new ChannelManager(() => config({ maxFrameSize: 999, targetNumFrames: 1000 }), { logger });
    for (const b of blocks) cm.addL2Block(b);
    const txs = drain(cm);
    expect(txs.length).toBeGreaterThan(10);
    const calldata = payloads(txs);
    for (const c of calldata) expect(c.length).toBeLessThanOrEqual(1000);
    const frames = calldata.flatMap((c) => parseFrames(c));
    expect(frames.map((f) => f.number)).toEqual(frames.map((_, i) => i));
    expect(frames.map((f) => f.isLast)).toEqual(frames.map((_, i) => i === frames.length - 1));
    expectMatches(await decodeBatches(calldata, chain), json, blocks);
  });

  it('blobs: up to target-num-frames blobs per tx, each blob a full frame', async () => {
    const { json, blocks } = await chainOf(4, { txs: 4, dataBytes: 40_000 });
    const cm = new ChannelManager(
      () =>
        config({
          useBlobs: true,
          maxFrameSize: MAX_BLOB_DATA_SIZE - 1,
          targetNumFrames: 3,
          compressor: 'ratio',
          approxComprRatio: 1,
        }),
      { logger },
    );
    for (const b of blocks) cm.addL2Block(b);
    const txs = drain(cm);
    expect(txs.every((t) => t.useBlobs && t.frames.length <= 3)).toBe(true);
    expect(txs.reduce((n, t) => n + t.frames.length, 0)).toBeGreaterThan(3);
    expectMatches(await decodeBatches(payloads(txs), chain), json, blocks);
  });

  it('shadow compressor closes a channel near its target and starts the next with the block that did not fit', async () => {
    const { json, blocks } = await chainOf(8, { txs: 1, dataBytes: 2000, seed: 'shadow' });
    const cm = new ChannelManager(() => config({ maxFrameSize: 5023, targetNumFrames: 1 }), { logger });
    for (const b of blocks) cm.addL2Block(b);
    const txs = drain(cm);
    const channels = new Set(txs.map((t) => t.channelId));
    expect(channels.size).toBeGreaterThan(1);
    for (const t of txs) expect(t.frames.reduce((n, f) => n + f.data.length, 0)).toBeLessThanOrEqual(5000);
    expectMatches(await decodeBatches(payloads(txs), chain), json, blocks);
  });

  it('ratio compressor estimates from input size', async () => {
    const { blocks } = await chainOf(3, { txs: 1, dataBytes: 1000 });
    const b = new ChannelBuilder(config({ compressor: 'ratio', approxComprRatio: 0.5, maxFrameSize: 1023 }), 0);
    expect(b.addBlock(blocks[0] as L2Block)).toBe(true);
    expect(b.isFull).toBe(false);
    // ~2.3 kB of input × 0.5 passes the 1000-byte target: the block is left for the next channel.
    expect(b.addBlock(blocks[1] as L2Block)).toBe(false);
    expect(b.fullReason).toBe('compressor-full');
    expect(b.blocks).toHaveLength(1);
    const roomy = new ChannelBuilder(config({ compressor: 'ratio', approxComprRatio: 0.1, maxFrameSize: 1023 }), 0);
    for (const blk of blocks) expect(roomy.addBlock(blk)).toBe(true);
    expect(roomy.isFull).toBe(false);
  });

  it('closes on max channel duration and on the sequencing window', async () => {
    const { blocks } = await chainOf(2);
    const b = new ChannelBuilder(config({ maxChannelDuration: 3 }), 100);
    b.addBlock(blocks[0] as L2Block);
    b.checkTimeout(102);
    expect(b.isFull).toBe(false);
    b.checkTimeout(103);
    expect(b.fullReason).toBe('max-duration');
    const w = new ChannelBuilder(config({ seqWindowSize: 20, subSafetyMargin: 5 }), 100);
    w.addBlock(blocks[0] as L2Block); // origin 100: must land before 100 + 20 - 5
    w.checkTimeout(114);
    expect(w.isFull).toBe(false);
    w.checkTimeout(115);
    expect(w.fullReason).toBe('seq-window');
  });
});

describe('channel manager state', () => {
  it('refuses a block that does not build on the last one (L2 reorg)', async () => {
    const { blocks } = await chainOf(3);
    const { blocks: other } = await chainOf(3, { seed: 'fork' });
    const cm = new ChannelManager(() => config(), { logger });
    cm.addL2Block(blocks[0] as L2Block);
    cm.addL2Block(blocks[1] as L2Block);
    expect(() => cm.addL2Block(other[2] as L2Block)).toThrow(/parent/);
    cm.clear();
    expect(cm.tip).toBeUndefined();
  });

  it('hands frames out in order and rebuilds a failed channel (and later ones) from its blocks', async () => {
    const { json, blocks } = await chainOf(6, { dataBytes: 1500 });
    const cm = new ChannelManager(() => config({ maxFrameSize: 1023, targetNumFrames: 100 }), { logger });
    for (const b of blocks) cm.addL2Block(b);
    const head = { number: 200, timestamp: GENESIS_TIME + 1000 };
    const first = cm.forceClose(head) as TxData;
    const second = cm.nextTxData(head) as TxData;
    expect(second.frames[0]?.number).toBe(1);
    cm.txConfirmed(first.id, 201);
    cm.txFailed(second.id);
    // The channel is rebuilt under a new id from frame 0.
    const again = drain(cm);
    expect(again[0]?.channelId).not.toBe(first.channelId);
    expect(again[0]?.frames[0]?.number).toBe(0);
    expectMatches(await decodeBatches(payloads(again), chain), json, blocks);
    // Confirmations of the old channel's transactions are ignored now.
    cm.txConfirmed(second.id, 202);
    for (const t of again) cm.txConfirmed(t.id, 203);
    expect(cm.channelCount).toBe(0);
  });

  it('a channel whose frames landed more than channel_timeout apart is resubmitted', async () => {
    const { blocks } = await chainOf(4, { dataBytes: 1500 });
    const cm = new ChannelManager(() => config({ maxFrameSize: 2023, targetNumFrames: 100, channelTimeout: 5 }), {
      logger,
    });
    for (const b of blocks) cm.addL2Block(b);
    const head = { number: 200, timestamp: GENESIS_TIME + 1000 };
    const txs = [cm.forceClose(head) as TxData];
    for (let t = cm.nextTxData(head); t; t = cm.nextTxData(head)) txs.push(t);
    expect(txs.length).toBeGreaterThan(1);
    cm.txConfirmed((txs[0] as TxData).id, 300);
    cm.txConfirmed((txs[1] as TxData).id, 305);
    expect(cm.pendingBlocks).toBe(4);
    const redo = drain(cm);
    expect(redo[0]?.channelId).not.toBe(txs[0]?.channelId);
  });

  it('keeps a done channel while an earlier one is still in flight', async () => {
    const { blocks } = await chainOf(6, { txs: 1 });
    const cm = new ChannelManager(() => config(), { logger });
    const head = { number: 200, timestamp: GENESIS_TIME + 1000 };
    for (const b of blocks.slice(0, 3)) cm.addL2Block(b);
    const a = cm.forceClose(head) as TxData;
    for (const b of blocks.slice(3)) cm.addL2Block(b);
    const b2 = cm.forceClose(head) as TxData;
    expect(a.channelId).not.toBe(b2.channelId);
    cm.txConfirmed(b2.id, 201);
    expect(cm.channelCount).toBe(2);
    cm.txFailed(a.id);
    expect(cm.pendingBlocks).toBe(6); // both channels' blocks are queued again, in order
    cm.txConfirmed(b2.id, 201);
    const redo = drain(cm);
    expect(redo).toHaveLength(1);
  });
});
