// Test helper: runs batcher transaction data back through the derivation's own decoders (frames, channel
// reassembly, decompression, batch decoding, span expansion) and returns one entry per L2 block.
import { keccak256 } from '../../../../src/main/native/keccak.js';
import { BatchReader } from '../../../../src/main/node/derive/channelReader.js';
import { decodeBatchData, SINGULAR_BATCH_TYPE } from '../../../../src/main/protocol/batch/batchCodec.js';
import { deriveSpanBatch } from '../../../../src/main/protocol/batch/spanBatch.js';
import { decompressChannel } from '../../../../src/main/protocol/channel/decompress.js';
import { channelIdHex, type Frame, parseFrames } from '../../../../src/main/protocol/channel/frame.js';

export interface DecodedBlock {
  timestamp: number;
  epochNum: number;
  /** Singular batches only. */
  parentHash?: string;
  epochHash?: string;
  txHashes: string[];
  batchType: number;
  channel: string;
  compression: string;
}

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/** Frames of every payload, then channels assembled in first-seen order; each frame number must follow in order. */
export function assembleChannels(payloads: readonly Uint8Array[]): Map<string, Uint8Array> {
  const frames = new Map<string, Frame[]>();
  for (const p of payloads) {
    for (const f of parseFrames(p)) {
      const id = channelIdHex(f.id);
      const list = frames.get(id) ?? [];
      if (f.number !== list.length) throw new Error(`channel ${id}: frame ${f.number} after ${list.length} frames`);
      list.push(f);
      frames.set(id, list);
    }
  }
  const out = new Map<string, Uint8Array>();
  for (const [id, list] of frames) {
    if (!list[list.length - 1]?.isLast) throw new Error(`channel ${id} is not closed`);
    if (list.slice(0, -1).some((f) => f.isLast)) throw new Error(`channel ${id}: is_last before the end`);
    out.set(id, Buffer.concat(list.map((f) => f.data)));
  }
  return out;
}

export async function decodeBatches(
  payloads: readonly Uint8Array[],
  chain: { blockTime: number; genesisTime: number; chainId: bigint },
): Promise<DecodedBlock[]> {
  const out: DecodedBlock[] = [];
  for (const [channel, data] of assembleChannels(payloads)) {
    const d = await decompressChannel(data, { fjord: true, maxBytes: 100_000_000 });
    if (d.error) throw new Error(`channel ${channel}: ${d.error}`);
    const reader = new BatchReader(d.data);
    for (let typed = reader.next(); typed !== undefined; typed = reader.next()) {
      const b = decodeBatchData(typed);
      if (b.type === SINGULAR_BATCH_TYPE) {
        out.push({
          timestamp: b.batch.timestamp,
          epochNum: b.batch.epochNum,
          parentHash: hex(b.batch.parentHash),
          epochHash: hex(b.batch.epochHash),
          txHashes: b.batch.transactions.map((t) => hex(keccak256(t))),
          batchType: 0,
          channel,
          compression: d.algo,
        });
      } else {
        const span = deriveSpanBatch(b.batch, chain.blockTime, chain.genesisTime, chain.chainId);
        for (const el of span.batches) {
          out.push({
            timestamp: el.timestamp,
            epochNum: el.epochNum,
            txHashes: el.transactions.map((t) => hex(keccak256(t))),
            batchType: 1,
            channel,
            compression: d.algo,
          });
        }
      }
    }
  }
  return out;
}
