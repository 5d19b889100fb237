// kona's derivation vectors (../shared/fixtures/kona-vectors): calldata retrieval from a real OP-mainnet batcher
// transaction, decompression of a real zlib channel holding a span batch, and a byte-exact span batch round trip.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BatchReader } from '../../src/main/node/derive/channelReader.js';
import { MAX_RLP_BYTES_PER_CHANNEL_BEDROCK } from '../../src/main/primitives/rollup/config.js';
import { decodeTransaction } from '../../src/main/primitives/tx/decode.js';
import { decodeBatchData, encodeBatchData, SPAN_BATCH_TYPE } from '../../src/main/protocol/batch/batchCodec.js';
import { toHex } from '../../src/main/protocol/batch/bytes.js';
import { decodeRawSpanBatch, encodeRawSpanBatch } from '../../src/main/protocol/batch/rawSpanBatch.js';
import { deriveSpanBatch, SpanBatchBuilder, spanToSingularBatches } from '../../src/main/protocol/batch/spanBatch.js';
import { decompressChannel } from '../../src/main/protocol/channel/decompress.js';
import { encodeBatcherData, parseFrames } from '../../src/main/protocol/channel/frame.js';
import { recoverSender } from '../../src/main/protocol/senders/recover.js';
import { FIXTURES } from '../helpers/paths.js';

const DIR = join(FIXTURES, 'kona-vectors');
const KNOWN = new Set(['SOURCE', 'raw_batcher_tx.hex', 'batch.hex', 'raw_batch.hex']);

describe('kona vectors', () => {
  it('knows every fixture file', () => {
    for (const f of readdirSync(DIR)) expect(KNOWN.has(f), `unknown fixture ${f}`).toBe(true);
  });

  it('retrieves the frames of a real batcher transaction (calldata)', () => {
    const raw = new Uint8Array(readFileSync(join(DIR, 'raw_batcher_tx.hex')));
    const tx = decodeTransaction(raw);
    expect(tx.type).toBe(2);
    expect(tx.to?.toString()).toBe('0xff00000000000000000000000000000000000010'); // OP mainnet batch inbox
    expect(toHex(recoverSender(raw))).toBe('0x6887246668a3b87f54deb3b94ba47a6f63f32985'); // OP mainnet batcher
    expect(tx.data.length).toBe(119823); // kona's expected calldata length
    const frames = parseFrames(tx.data);
    expect(frames.length).toBe(1);
    const f = frames[0]!;
    expect(f.id.length).toBe(16);
    expect(f.data.length).toBe(119823 - 1 - 23);
    // The frame re-encodes to the exact calldata.
    expect(Buffer.from(encodeBatcherData(frames)).equals(Buffer.from(tx.data))).toBe(true);
  });

  it('decompresses the zlib channel and decodes its span batch', async () => {
    const text = readFileSync(join(DIR, 'batch.hex'), 'utf8').trim();
    const channel = new Uint8Array(Buffer.from(text, 'hex'));
    const whole = inflateSync(channel);
    const out = await decompressChannel(channel, { fjord: false, maxBytes: MAX_RLP_BYTES_PER_CHANNEL_BEDROCK });
    expect(out.algo).toBe('zlib');
    expect(out.error).toBeUndefined();
    expect(out.data.length).toBe(whole.length);
    const reader = new BatchReader(out.data);
    const typed = reader.next()!;
    expect(reader.consumed).toBe(whole.length); // kona: one batch spans the whole channel
    expect(reader.next()).toBeUndefined();
    const batch = decodeBatchData(typed);
    expect(batch.type).toBe(SPAN_BATCH_TYPE);
    if (batch.type !== SPAN_BATCH_TYPE) return;
    const raw = batch.batch;
    expect(raw.blockCount).toBeGreaterThan(0);
    expect(raw.blockTxCounts.reduce((a, b) => a + b, 0)).toBe(raw.txs.totalBlockTxCount);
    // Byte-exact re-encoding of the decoded batch.
    expect(Buffer.from(encodeBatchData(batch)).equals(Buffer.from(typed))).toBe(true);
    // Expansion into blocks with full transactions, and back through the batcher's builder.
    const chainId = 10n;
    const span = deriveSpanBatch(raw, 2, 0, chainId);
    expect(span.batches.length).toBe(raw.blockCount);
    for (const tx of span.batches.flatMap((b) => b.transactions)) expect(() => decodeTransaction(tx)).not.toThrow();
    const origins = [...new Set(span.batches.map((b) => b.epochNum))].map((n) => ({
      number: n,
      hash:
        n === Number(raw.l1OriginNum)
          ? toHex(new Uint8Array([...raw.l1OriginCheck, ...new Uint8Array(12)]))
          : `0x${'11'.repeat(32)}`,
    }));
    const singles = spanToSingularBatches(span, origins, -1);
    const builder = new SpanBatchBuilder(0, chainId);
    singles.forEach((s, i) => {
      const seq = i === 0 ? (raw.originBits[0] === 1 ? 0 : 1) : 1;
      builder.append({ ...s, parentHash: new Uint8Array([...raw.parentCheck, ...new Uint8Array(12)]) }, seq);
    });
    expect(Buffer.from(encodeRawSpanBatch(builder.toRaw())).equals(Buffer.from(typed.subarray(1)))).toBe(true);
  });

  it('round-trips raw_batch.hex byte for byte', () => {
    const bytes = new Uint8Array(readFileSync(join(DIR, 'raw_batch.hex')));
    const raw = decodeRawSpanBatch(bytes);
    expect(raw.blockCount).toBeGreaterThan(0);
    expect(Buffer.from(encodeRawSpanBatch(raw)).equals(Buffer.from(bytes))).toBe(true);
  });
});
