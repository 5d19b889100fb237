import { describe, expect, it } from 'vitest';
import { ChannelAssembler } from '../../../../../src/main/node/derive/channelAssembler.js';
import { frame, l1, rollupConfig, ScriptedFrames } from './helpers.js';

const HOLOCENE = { regolith: 0, canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0, holocene: 0 };
const bytes = (b: Uint8Array | undefined) => (b === undefined ? undefined : [...b]);

describe('ChannelAssembler (Holocene)', () => {
  it('reads a channel of ordered frames', async () => {
    const src = new ScriptedFrames(l1(1));
    const ca = new ChannelAssembler(rollupConfig(HOLOCENE), src);
    src.queue.push(frame(1, 0), frame(1, 1, true));
    expect(bytes(await ca.nextData())).toEqual([1, 0, 1, 1]);
  });

  it('drops a non-first frame without a channel and out-of-order frames', async () => {
    const src = new ScriptedFrames(l1(1));
    const ca = new ChannelAssembler(rollupConfig(HOLOCENE), src);
    src.queue.push(frame(1, 1), frame(2, 0), frame(2, 2, true), frame(3, 1, true));
    expect(await ca.nextData()).toBeUndefined();
    expect(ca.stats.framesDropped).toBe(3);
    expect(ca.stagingChannelId()).toBe('00000000000000000000000000000002');
  });

  it('replaces an unfinished channel on a new first frame', async () => {
    const src = new ScriptedFrames(l1(1));
    const ca = new ChannelAssembler(rollupConfig(HOLOCENE), src);
    src.queue.push(frame(1, 0), frame(2, 0), frame(1, 1, true), frame(2, 1, true));
    expect(bytes(await ca.nextData())).toEqual([2, 0, 2, 1]);
    expect(ca.stats.framesDropped).toBe(1);
  });

  it('drops a timed-out staging channel (Granite timeout 50)', async () => {
    const src = new ScriptedFrames(l1(1));
    const ca = new ChannelAssembler(rollupConfig(HOLOCENE), src);
    src.queue.push(frame(1, 0));
    expect(await ca.nextData()).toBeUndefined();
    src.ref = l1(52);
    src.queue.push(frame(1, 1, true));
    expect(await ca.nextData()).toBeUndefined();
    expect(ca.stats.channelsTimedOut).toBe(1);
  });

  it('drops a channel larger than MAX_RLP_BYTES_PER_CHANNEL', async () => {
    const src = new ScriptedFrames(l1(1));
    const ca = new ChannelAssembler(rollupConfig(HOLOCENE), src);
    const big = new Uint8Array(1_000_000);
    for (let i = 0; i < 100; i++) src.queue.push(frame(1, i, false, big));
    src.queue.push(frame(1, 100, true));
    expect(await ca.nextData()).toBeUndefined();
    expect(ca.stats.channelsPruned).toBe(1);
    expect(ca.stats.framesDropped).toBe(1);
  });
});
