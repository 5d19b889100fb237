import { describe, expect, it } from 'vitest';
import { ChannelBank } from '../../../../../src/main/node/derive/channelBank.js';
import { frame, l1, rollupConfig, ScriptedFrames } from './helpers.js';

const bytes = (b: Uint8Array | undefined) => (b === undefined ? undefined : [...b]);

describe('ChannelBank (pre-Holocene)', () => {
  it('assembles out-of-order frames and reads a ready channel', async () => {
    const src = new ScriptedFrames(l1(1));
    const bank = new ChannelBank(rollupConfig(), src);
    src.queue.push(frame(1, 1, true), frame(1, 0));
    expect(bytes(await bank.nextData())).toEqual([1, 0, 1, 1]);
    expect(await bank.nextData()).toBeUndefined();
    expect(bank.stats.channelsRead).toBe(1);
  });

  it('drops duplicate frames and frames of timed-out channels', async () => {
    const src = new ScriptedFrames(l1(1));
    const bank = new ChannelBank(rollupConfig(), src);
    src.queue.push(frame(1, 0), frame(1, 0));
    expect(await bank.nextData()).toBeUndefined();
    expect(bank.stats.framesDropped).toBe(1);
    src.ref = l1(7); // opened at 1, timeout 5: 1 + 5 < 7
    src.queue.push(frame(1, 1, true));
    expect(await bank.nextData()).toBeUndefined();
    // The head channel timed out and was removed on read; the late frame opens a fresh, incomplete channel.
    expect(bank.stats.channelsTimedOut).toBe(1);
    expect(bank.channelIds()).toEqual(['00000000000000000000000000000001']);
  });

  it('reads only the head channel before Canyon, any ready one after', async () => {
    for (const [forks, want] of [
      [{}, undefined],
      [{ regolith: 0, canyon: 0 }, [2, 0]],
    ] as const) {
      const src = new ScriptedFrames(l1(1));
      const bank = new ChannelBank(rollupConfig(forks), src);
      src.queue.push(frame(1, 0), frame(2, 0, true));
      expect(bytes(await bank.nextData())).toEqual(want);
    }
  });

  it('prunes the oldest channels past MAX_CHANNEL_BANK_SIZE', async () => {
    const src = new ScriptedFrames(l1(1));
    const bank = new ChannelBank(rollupConfig(), src);
    const big = new Uint8Array(1_000_000);
    for (let i = 0; i < 100; i++) src.queue.push(frame(i, 0, false, big));
    expect(await bank.nextData()).toBeUndefined();
    // 99 × (1e6 + 200) fits in 1e8, 100 do not: channel 0 goes first.
    expect(bank.stats.channelsPruned).toBe(1);
    expect(bank.channelIds()[0]).toBe('00000000000000000000000000000001');
  });
});
