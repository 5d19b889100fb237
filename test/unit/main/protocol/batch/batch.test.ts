import { describe, expect, it } from 'vitest';
import { type RlpInput, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { decodeBatchData, encodeBatchData } from '../../../../../src/main/protocol/batch/batchCodec.js';
import { ByteReader, encodeUvarint, readBits, writeBits } from '../../../../../src/main/protocol/batch/bytes.js';
import { decodeRawSpanBatch, encodeRawSpanBatch } from '../../../../../src/main/protocol/batch/rawSpanBatch.js';
import { decodeSingularBatch, type SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';
import {
  checkOriginHash,
  checkParentHash,
  deriveSpanBatch,
  SpanBatchBuilder,
  spanToSingularBatches,
} from '../../../../../src/main/protocol/batch/spanBatch.js';
import { decodeSpanTxData, fromFullTx } from '../../../../../src/main/protocol/batch/spanBatchTx.js';

const CHAIN = 901n;
const R = new Uint8Array(32).fill(0x11);
const S = new Uint8Array(32).fill(0x22);
const TO = new Uint8Array(20).fill(0x33);
const typed = (t: number, items: RlpInput[]) => Uint8Array.from([t, ...rlpEncode(items)]);

// Signed transactions built by hand (signatures are not checked by the batch format).
const TXS = {
  legacyProtected: rlpEncode([1n, 1000n, 21000n, TO, 5n, Uint8Array.of(1), CHAIN * 2n + 36n, R, S]),
  legacyUnprotected: rlpEncode([2n, 1000n, 21000n, TO, 0n, new Uint8Array(0), 27n, R, S]),
  accessList: typed(1, [
    CHAIN,
    3n,
    1000n,
    50000n,
    new Uint8Array(0),
    0n,
    Uint8Array.of(0x60),
    [[TO, [new Uint8Array(32)]]],
    1n,
    R,
    S,
  ]),
  dynamicFee: typed(2, [CHAIN, 4n, 1n, 2000n, 60000n, TO, 7n, new Uint8Array(0), [], 0n, R, S]),
  setCode: typed(4, [
    CHAIN,
    5n,
    1n,
    2000n,
    90000n,
    TO,
    0n,
    new Uint8Array(0),
    [],
    [[CHAIN, TO, 9n, 1n, R, S]],
    1n,
    R,
    S,
  ]),
};

const batch = (ts: number, epoch: number, txs: Uint8Array[]): SingularBatch => ({
  parentHash: new Uint8Array(32).fill(0xaa),
  epochNum: epoch,
  epochHash: new Uint8Array(32).fill(epoch),
  timestamp: ts,
  transactions: txs,
});

describe('bytes', () => {
  it('uvarints follow Go binary.Uvarint', () => {
    const out: number[] = [];
    encodeUvarint(300, out);
    expect(out).toEqual([0xac, 0x02]);
    expect(new ByteReader(Uint8Array.from(out)).uvarint('x')).toBe(300n);
    expect(() => new ByteReader(Uint8Array.of(0x80)).uvarint('x')).toThrow(/end of data/);
    expect(() => new ByteReader(new Uint8Array(10).fill(0xff)).uvarint('x')).toThrow(/overflows/);
    const max: number[] = [];
    encodeUvarint((1n << 64n) - 1n, max);
    expect(new ByteReader(Uint8Array.from(max)).uvarint('x')).toBe((1n << 64n) - 1n);
  });

  it('bitlists are big-endian and reject bits past their length', () => {
    const out: number[] = [];
    writeBits(Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0, 1), out);
    expect(out).toEqual([0x02, 0x01]);
    expect([...readBits(new ByteReader(Uint8Array.from(out)), 10, 'b')]).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(() => readBits(new ByteReader(Uint8Array.of(0x04, 0)), 10, 'b')).toThrow(/longer than 10/);
  });
});

describe('singular batch', () => {
  it('round-trips and ignores bytes after the list', () => {
    const b = batch(1002, 3, [TXS.dynamicFee]);
    const enc = encodeBatchData({ type: 0, batch: b });
    expect(decodeBatchData(enc)).toEqual({ type: 0, batch: b });
    expect(decodeSingularBatch(Uint8Array.from([...enc.subarray(1), 1, 2, 3]))).toEqual(b);
  });
  it.each([
    ['not a list', rlpEncode(Uint8Array.of(1))],
    ['wrong field count', rlpEncode([R, 1n, R, 2n])],
    ['short hash', rlpEncode([R.subarray(1), 1n, R, 2n, []])],
    ['integer with leading zero', rlpEncode([R, Uint8Array.of(0, 1), R, 2n, []])],
    ['integer over 64 bits', rlpEncode([R, new Uint8Array(9).fill(1), R, 2n, []])],
    ['transactions not a list', rlpEncode([R, 1n, R, 2n, Uint8Array.of(1)])],
    ['truncated', rlpEncode([R, 1n, R, 2n, []]).subarray(0, 40)],
  ])('rejects %s', (_n, content) => {
    expect(() => decodeSingularBatch(content)).toThrow();
  });
  it('rejects unknown batch versions', () => {
    expect(() => decodeBatchData(Uint8Array.of(2, 0xc0))).toThrow(/unrecognized batch type 2/);
    expect(() => decodeBatchData(new Uint8Array(0))).toThrow(/too short/);
  });
});

describe('span batch transactions', () => {
  it.each(Object.entries(TXS))('%s survives span-batch encoding byte for byte', (_name, raw) => {
    const builder = new SpanBatchBuilder(1000, CHAIN);
    builder.append(batch(1002, 5, [raw]), 0);
    const rawSpan = builder.toRaw();
    const bytes = encodeRawSpanBatch(rawSpan);
    const decoded = decodeRawSpanBatch(bytes);
    expect(encodeRawSpanBatch(decoded)).toEqual(bytes);
    const span = deriveSpanBatch(decoded, 2, 1000, CHAIN);
    expect(span.batches[0]?.transactions[0]).toEqual(raw);
  });

  it('refuses transactions for another chain, and deposits', () => {
    expect(() => fromFullTx(TXS.dynamicFee, 5n)).toThrow(/chain id/);
    expect(() => fromFullTx(Uint8Array.of(0x7e, 0xc0), CHAIN)).toThrow();
  });

  it.each([
    ['empty', new Uint8Array(0)],
    ['deposit type', Uint8Array.of(0x7e, 0xc0)],
    ['unknown type 3', Uint8Array.of(3, 0xc0)],
    ['wrong field count', typed(2, [1n, 2n])],
    ['authorization with 5 fields', typed(4, [0n, 1n, 1n, new Uint8Array(0), [], [[CHAIN, TO, 9n, 1n, R]]])],
  ])('rejects tx data: %s', (_n, data) => {
    expect(() => decodeSpanTxData(data)).toThrow();
  });

  it('refuses a SetCode contract creation', () => {
    const builder = new SpanBatchBuilder(1000, CHAIN);
    builder.append(batch(1002, 5, [TXS.setCode]), 0);
    const r = builder.toRaw();
    const bad = { ...r, txs: { ...r.txs, contractCreationBits: Uint8Array.of(1), txTos: [] } };
    expect(() => deriveSpanBatch(decodeRawSpanBatch(encodeRawSpanBatch(bad)), 2, 1000, CHAIN)).toThrow(/SetCode/);
  });
});

describe('span batch', () => {
  const blocks = [
    batch(1002, 5, [TXS.legacyProtected]),
    batch(1004, 5, []),
    batch(1006, 6, [TXS.dynamicFee, TXS.legacyUnprotected]),
    batch(1008, 7, [TXS.setCode]),
  ];
  const build = () => {
    const b = new SpanBatchBuilder(1000, CHAIN);
    for (const [i, s] of blocks.entries()) b.append(s, i === 0 ? 1 : 0);
    return b.toRaw();
  };

  it('derives timestamps and L1 origins from the prefix and origin bits', () => {
    const raw = build();
    expect(raw.relTimestamp).toBe(2n);
    expect(raw.l1OriginNum).toBe(7n);
    expect([...raw.originBits]).toEqual([0, 0, 1, 1]);
    const span = deriveSpanBatch(decodeRawSpanBatch(encodeRawSpanBatch(raw)), 2, 1000, CHAIN);
    expect(span.batches.map((b) => [b.timestamp, b.epochNum, b.transactions.length])).toEqual([
      [1002, 5, 1],
      [1004, 5, 0],
      [1006, 6, 2],
      [1008, 7, 1],
    ]);
    expect(checkOriginHash(span, `0x${'07'.repeat(32)}`)).toBe(true);
    expect(checkParentHash(span, `0x${'aa'.repeat(32)}`)).toBe(true);
    expect(checkParentHash(span, `0x${'ab'.repeat(32)}`)).toBe(false);
    const origins = [5, 6, 7].map((n) => ({ number: n, hash: `0x${n.toString(16).padStart(2, '0').repeat(32)}` }));
    const singles = spanToSingularBatches(span, origins, 1004);
    expect(singles.map((s) => [s.timestamp, s.epochNum, s.epochHash[0]])).toEqual([
      [1006, 6, 6],
      [1008, 7, 7],
    ]);
    expect(singles[0]?.transactions).toEqual(blocks[2]?.transactions);
    expect(() => spanToSingularBatches(span, origins.slice(0, 2), 0)).toThrow(/no L1 origin for epoch 7/);
  });

  it.each([
    ['empty span batch', (b: number[]) => b.splice(42, 1, 0)],
    ['truncated', (b: number[]) => b.splice(b.length - 5)],
    ['origin bits past block count', (b: number[]) => b.splice(43, 1, 0xf0)],
  ])('rejects %s', (_n, mutate) => {
    const bytes = [...encodeRawSpanBatch(build())];
    mutate(bytes);
    expect(() => decodeRawSpanBatch(Uint8Array.from(bytes))).toThrow();
  });

  it('rejects block counts over MAX_SPAN_BATCH_ELEMENT_COUNT before allocating', () => {
    const out: number[] = [0, 0, ...new Array(40).fill(0)];
    encodeUvarint(10_000_001, out);
    expect(() => decodeRawSpanBatch(Uint8Array.from(out))).toThrow(/element limit/);
  });
});
