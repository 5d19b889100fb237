import { describe, expect, it } from 'vitest';
import { encodeBatcherData, encodeFrame, parseFrames } from '../../../../../src/main/protocol/channel/frame.js';
import { frame } from '../../node/derive/helpers.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('frames', () => {
  it('encodes the spec layout and parses it back', () => {
    const f = frame(7, 0x0102, true, Uint8Array.of(0xaa, 0xbb));
    expect(hex(encodeFrame(f))).toBe(`${'00'.repeat(15)}07${'0102'}${'00000002'}${'aabb'}${'01'}`);
    const data = encodeBatcherData([f, frame(8, 0, false, new Uint8Array(0))]);
    const parsed = parseFrames(data);
    expect(parsed.length).toBe(2);
    expect(parsed[0]).toEqual(f);
    expect(parsed[1]?.isLast).toBe(false);
    expect(parsed[1]?.data.length).toBe(0);
  });

  const good = encodeBatcherData([frame(1, 0, false), frame(1, 1, true)]);
  const withByte = (i: number, v: number) => {
    const c = good.slice();
    c[i] = v;
    return c;
  };
  it.each([
    ['empty data', new Uint8Array(0), /empty/],
    ['unknown version', withByte(0, 1), /version/],
    ['no frame', Uint8Array.of(0), /no frame/],
    ['truncated channel id', good.subarray(0, 10), /channel_id/],
    ['truncated number', good.subarray(0, 18), /frame_number/],
    ['truncated length', good.subarray(0, 20), /frame_data_length/],
    ['truncated data', good.subarray(0, 24), /frame_data/],
    ['missing is_last', good.subarray(0, 1 + 16 + 2 + 4 + 2), /is_last/],
    ['is_last not a bool', withByte(1 + 16 + 2 + 4 + 2, 2), /is_last/],
    ['trailing bytes (a broken second frame)', Uint8Array.from([...good, 0x00]), /truncated/],
    [
      'oversized frame',
      (() => {
        const c = good.slice();
        c.set([0x00, 0x0f, 0x42, 0x41], 19);
        return c;
      })(),
      /exceeds/,
    ],
  ])('rejects the whole transaction: %s', (_n, data, msg) => {
    expect(() => parseFrames(data)).toThrow(msg);
  });

  it('accepts a frame of exactly the maximum length', () => {
    const big = frame(1, 0, true, new Uint8Array(1_000_000));
    expect(parseFrames(encodeBatcherData([big]))[0]?.data.length).toBe(1_000_000);
  });
});
