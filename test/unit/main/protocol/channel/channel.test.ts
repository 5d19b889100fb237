import { describe, expect, it } from 'vitest';
import { Channel, ChannelOut, splitIntoFrames } from '../../../../../src/main/protocol/channel/channel.js';
import { decompressChannel } from '../../../../../src/main/protocol/channel/decompress.js';
import { encodeBatcherData, parseFrames } from '../../../../../src/main/protocol/channel/frame.js';
import { frame, id, l1 } from '../../node/derive/helpers.js';

describe('Channel', () => {
  it('applies the insertion rules', () => {
    const ch = new Channel(id(1), l1(1));
    expect(ch.addFrame(frame(2, 0), l1(1))).toMatch(/another channel/);
    expect(ch.addFrame(frame(1, 1), l1(1))).toBeUndefined();
    expect(ch.addFrame(frame(1, 1), l1(1))).toMatch(/duplicate frame/);
    expect(ch.addFrame(frame(1, 3, true), l1(2))).toBeUndefined();
    expect(ch.addFrame(frame(1, 4), l1(2))).toMatch(/past the closing frame/);
    expect(ch.addFrame(frame(1, 2, true), l1(2))).toMatch(/duplicate closing/);
    expect(ch.isReady()).toBe(false);
    expect(ch.addFrame(frame(1, 0), l1(3))).toBeUndefined();
    expect(ch.addFrame(frame(1, 2), l1(3))).toBeUndefined();
    expect(ch.isReady()).toBe(true);
    expect(ch.highestL1Block.number).toBe(3);
    expect([...ch.data()]).toEqual([1, 0, 1, 1, 1, 2, 1, 3]);
  });

  it('prunes frames past a late closing frame (with op-node size accounting)', () => {
    const ch = new Channel(id(1), l1(1));
    ch.addFrame(frame(1, 0), l1(1));
    ch.addFrame(frame(1, 5), l1(1));
    expect(ch.size).toBe(2 * 202);
    ch.addFrame(frame(1, 1, true), l1(1));
    expect(ch.frameCount).toBe(2);
    expect(ch.isReady()).toBe(true);
    // op-node subtracts every buffered frame when pruning, then adds the closing one.
    expect(ch.size).toBe(202);
  });

  it('requires order in Holocene mode', () => {
    const ch = new Channel(id(1), l1(1), true);
    expect(ch.addFrame(frame(1, 1), l1(1))).toMatch(/out of order/);
    expect(ch.addFrame(frame(1, 0), l1(1))).toBeUndefined();
  });
});

describe('ChannelOut', () => {
  it.each(['zlib', 'brotli'] as const)('builds %s channels that decompress to the RLP batches', async (compression) => {
    const out = new ChannelOut({ compression, id: id(9) });
    out.addBatch(Uint8Array.of(0, 1, 2, 3));
    out.addBatch(new Uint8Array(300).fill(7));
    const frames = out.frames(100);
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.at(-1)?.isLast).toBe(true);
    const roundTrip = parseFrames(encodeBatcherData(frames));
    const data = Buffer.concat(roundTrip.map((f) => f.data));
    expect(data[0]).toBe(compression === 'brotli' ? 1 : 0x78);
    const d = await decompressChannel(data, { fjord: true, maxBytes: 1e6 });
    expect(d.data.length).toBe(out.inputBytes);
  });

  it('enforces the RLP byte limit and frame size', () => {
    const out = new ChannelOut({ compression: 'zlib', maxRlpBytes: 10 });
    expect(() => out.addBatch(new Uint8Array(20))).toThrow(/limit/);
    expect(() => splitIntoFrames(id(1), new Uint8Array(10), 23)).toThrow(/no room/);
    expect(splitIntoFrames(id(1), new Uint8Array(10), 24).length).toBe(10);
  });
});
