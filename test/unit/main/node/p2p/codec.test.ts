// The P2P wire codecs against third-party data and independent constructions: block hashes of geth's blocks in
// execution-apis' chain.rlp (each block's hash is its child's parentHash), the SSZ payload round trip through the
// signer's encoder for every version with bound checks on hostile bytes, topics and message ids computed
// independently with node:crypto over snappyjs output, and snappy framing (stream identifier, masked CRC-32C) with
// the format description's own example checksum.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  crc32c,
  snappyCompress,
  snappyFrameDecode,
  snappyFrameEncode,
  snappyUncompress,
} from '../../../../../src/main/common/snappy.js';
import type { ExecutionPayload } from '../../../../../src/main/node/engine/interface.js';
import { payloadBlockHash } from '../../../../../src/main/node/p2p/blockHash.js';
import { decodePayloadSsz } from '../../../../../src/main/node/p2p/payloadSsz.js';
import { blocksTopic, gossipMessageId, versionOfTopic } from '../../../../../src/main/node/p2p/topics.js';
import { encodePayloadSsz } from '../../../../../src/main/node/signer/gossipPayload.js';
import { decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

function payload(extra: Partial<ExecutionPayload> = {}): ExecutionPayload {
  return {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: new Uint8Array(32).fill(3),
    receiptsRoot: new Uint8Array(32).fill(4),
    logsBloom: new Uint8Array(256).fill(5),
    prevRandao: new Uint8Array(32).fill(6),
    blockNumber: 7n,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: 2000n,
    extraData: Uint8Array.of(0xee, 0xef),
    baseFeePerGas: (1n << 64n) + 5n,
    blockHash: new Uint8Array(32).fill(9),
    transactions: [Uint8Array.of(0x7e, 1, 2), Uint8Array.of(0x02, 3), new Uint8Array(0)],
    ...extra,
  };
}

describe('block hash of a gossiped payload', () => {
  it("matches geth's hashes for every block of execution-apis' chain.rlp (v3 layout: Cancun from genesis)", () => {
    const blocks = [...rlpItems(readFileSync(join(FIXTURES, 'execution-apis', 'tests', 'chain.rlp')))].map((r) =>
      decodeBlock(r),
    );
    expect(blocks.length).toBeGreaterThan(10);
    let checked = 0;
    for (let i = 0; i + 1 < blocks.length; i++) {
      const b = blocks[i];
      const child = blocks[i + 1];
      if (b === undefined || child === undefined) throw new Error('unreachable');
      const h = b.header;
      // The chain has no execution-layer requests (no Prague header field): the v3 layout applies throughout.
      expect(h.requestsHash).toBeUndefined();
      const p: ExecutionPayload = {
        parentHash: h.parentHash,
        feeRecipient: h.coinbase,
        stateRoot: h.stateRoot,
        receiptsRoot: h.receiptsRoot,
        logsBloom: h.logsBloom,
        prevRandao: h.mixHash,
        blockNumber: h.number,
        gasLimit: h.gasLimit,
        gasUsed: h.gasUsed,
        timestamp: h.timestamp,
        extraData: h.extraData,
        baseFeePerGas: h.baseFeePerGas ?? 0n,
        blockHash: child.header.parentHash,
        transactions: [...b.transactions] as Uint8Array[],
        withdrawals: b.withdrawals ?? [],
        blobGasUsed: h.blobGasUsed,
        excessBlobGas: h.excessBlobGas,
      };
      expect(hex(payloadBlockHash(p, 3, h.parentBeaconBlockRoot))).toBe(hex(child.header.parentHash));
      // and through the wire: SSZ encode, decode, hash again.
      const back = decodePayloadSsz(encodePayloadSsz(p, 3), 3);
      expect(hex(payloadBlockHash(back, 3, h.parentBeaconBlockRoot))).toBe(hex(child.header.parentHash));
      checked++;
    }
    expect(checked).toBe(blocks.length - 1);
  });
});

describe('SSZ payload decoding', () => {
  it.each([1, 2, 3, 4] as const)('round-trips a v%i payload through the encoder', (v) => {
    const p = payload(
      v === 1
        ? {}
        : {
            withdrawals: [{ index: 1n, validatorIndex: 2n, address: new Uint8Array(20).fill(0xaa), amount: 3n }],
            ...(v >= 3 ? { blobGasUsed: 11n, excessBlobGas: 12n } : {}),
            ...(v >= 4 ? { withdrawalsRoot: new Uint8Array(32).fill(0x77) } : {}),
          },
    );
    const back = decodePayloadSsz(encodePayloadSsz(p, v), v);
    expect(back).toEqual(p);
  });

  it('round-trips a payload without transactions', () => {
    const p = payload({ transactions: [], withdrawals: [] });
    expect(decodePayloadSsz(encodePayloadSsz(p, 2), 2)).toEqual(p);
  });

  it('refuses truncated data, bad offsets, long extra data and a withdrawals tail that is not whole', () => {
    const good = encodePayloadSsz(payload({ withdrawals: [] }), 2);
    expect(() => decodePayloadSsz(good.subarray(0, 100), 2)).toThrow(/at least/);
    const badExtra = good.slice();
    new DataView(badExtra.buffer).setUint32(436, 9999, true);
    expect(() => decodePayloadSsz(badExtra, 2)).toThrow(/extraData offset/);
    const badTx = good.slice();
    new DataView(badTx.buffer).setUint32(504, good.length + 1, true);
    expect(() => decodePayloadSsz(badTx, 2)).toThrow(/transactions offset/);
    const longExtra = encodePayloadSsz(payload({ extraData: new Uint8Array(32) }), 1);
    const fakeLong = new Uint8Array(longExtra.length + 1);
    fakeLong.set(longExtra.subarray(0, 508));
    new DataView(fakeLong.buffer).setUint32(504, 508 + 33, true);
    expect(() => decodePayloadSsz(fakeLong, 1)).toThrow(/at most 32/);
    const wd = Buffer.concat([good, new Uint8Array(43)]);
    expect(() => decodePayloadSsz(wd, 2)).toThrow(/multiple of 44/);
    // A transaction offset table pointing backwards.
    const txs = encodePayloadSsz(payload(), 1);
    const first = 508 + 2;
    new DataView(txs.buffer).setUint32(first + 4, 2, true);
    expect(() => decodePayloadSsz(txs, 1)).toThrow(/out of order/);
  });
});

describe('topics and message ids', () => {
  it('names one blocks topic per version and maps topics back', () => {
    expect(blocksTopic(10n, 1)).toBe('/optimism/10/0/blocks');
    expect(blocksTopic(10n, 4)).toBe('/optimism/10/3/blocks');
    expect(versionOfTopic(10n, '/optimism/10/2/blocks')).toBe(3);
    expect(versionOfTopic(10n, '/optimism/11/2/blocks')).toBeUndefined();
  });

  it('hashes the decoded data under domain 0x01000000 and raw bad snappy under 0x00000000, topic included', () => {
    const topic = '/optimism/901/3/blocks';
    const data = new Uint8Array(200).map((_, i) => i % 7);
    const compressed = snappyCompress(data);
    const expected = (domain: number[], body: Uint8Array) => {
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(BigInt(topic.length));
      return createHash('sha256')
        .update(Uint8Array.from(domain))
        .update(len)
        .update(topic)
        .update(body)
        .digest()
        .subarray(0, 20);
    };
    expect(hex(gossipMessageId(topic, compressed))).toBe(hex(expected([1, 0, 0, 0], data)));
    const garbage = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    expect(hex(gossipMessageId(topic, garbage))).toBe(hex(expected([0, 0, 0, 0], garbage)));
    expect(gossipMessageId(topic, compressed)).toHaveLength(20);
    expect(hex(gossipMessageId('/optimism/902/3/blocks', compressed))).not.toBe(
      hex(gossipMessageId(topic, compressed)),
    );
  });
});

describe('snappy', () => {
  it('computes CRC-32C with the standard check value', () => {
    // The CRC-32C check value of "123456789" (RFC 3720 appendix B.4 lists the polynomial; 0xe3069283 is its check).
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('frames: stream identifier first, round trip across 64 KiB chunks, checksum and size checked', () => {
    const data = new Uint8Array(200_000).map((_, i) => (i * 31) % 251);
    const framed = snappyFrameEncode(data);
    expect(hex(framed.subarray(0, 10))).toBe('0xff060000734e61507059');
    expect(snappyFrameDecode(framed, data.length)).toEqual(data);
    expect(() => snappyFrameDecode(framed, data.length - 1)).toThrow(/more than/);
    const corrupt = framed.slice();
    corrupt[16] = (corrupt[16] as number) ^ 1;
    expect(() => snappyFrameDecode(corrupt, data.length)).toThrow(/snappy/);
    expect(() => snappyFrameDecode(framed.subarray(10), data.length)).toThrow(/stream identifier/);
    expect(snappyFrameDecode(snappyFrameEncode(new Uint8Array(0)), 10)).toEqual(new Uint8Array(0));
  });

  it('refuses a block whose declared length is above the limit before decoding it', () => {
    const big = snappyCompress(new Uint8Array(1000));
    expect(() => snappyUncompress(big, 999)).toThrow(/more than the 999/);
    expect(snappyUncompress(big, 1000)).toHaveLength(1000);
    expect(() => snappyUncompress(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80), 10)).toThrow(/length header/);
  });

  it('refuses hostile blocks that hang or zero-fill a naive decoder', () => {
    // A literal whose 4-byte length wraps negative in 32-bit arithmetic (snappyjs loops forever on it).
    expect(() => snappyUncompress(Uint8Array.of(10, 0xfc, 0xff, 0xff, 0xff, 0xff, 1, 2), 100)).toThrow(/truncated/);
    // A header promising 10 bytes and a stream holding 2 (snappyjs returns 8 zero bytes after them).
    expect(() => snappyUncompress(Uint8Array.of(10, 0x04, 0xaa, 0xbb), 100)).toThrow(/header says 10/);
    // A copy reaching before the start of the output.
    expect(() => snappyUncompress(Uint8Array.of(10, 0x00, 0xaa, 0x01 | (1 << 2), 0x05), 100)).toThrow(/offset/);
    // Round trip of a run (overlapping copy) and a long literal through snappyjs' compressor.
    const data = Buffer.concat([Buffer.alloc(5000, 7), randomBytes(3000)]);
    expect(Buffer.from(snappyUncompress(snappyCompress(data), data.length)).equals(data)).toBe(true);
  });
});
