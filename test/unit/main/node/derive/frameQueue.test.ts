import { describe, expect, it } from 'vitest';
import { FrameQueue, pruneFrameQueue } from '../../../../../src/main/node/derive/frameQueue.js';
import { encodeBatcherData, type Frame } from '../../../../../src/main/protocol/channel/frame.js';
import { frame, l1, rollupConfig, ScriptedData } from './helpers.js';

const show = (fs: Frame[]) => fs.map((f) => `${f.id[15]}:${f.number}${f.isLast ? '!' : ''}`);

describe('pruneFrameQueue (Holocene)', () => {
  it.each([
    ['ordered channels stay', [frame(1, 0), frame(1, 1, true), frame(2, 0)], ['1:0', '1:1!', '2:0']],
    ['gap drops the later frame', [frame(1, 0), frame(1, 2)], ['1:0']],
    ['duplicate dropped', [frame(1, 0), frame(1, 0)], ['1:0']],
    ['frame after close dropped', [frame(1, 0, true), frame(1, 1)], ['1:0!']],
    ['non-first frame of another channel dropped', [frame(1, 0, true), frame(2, 1)], ['1:0!']],
    ['new first frame drops the open channel', [frame(1, 0), frame(1, 1), frame(2, 0)], ['2:0']],
    ['non-first frame at the head is kept', [frame(1, 3), frame(1, 4, true)], ['1:3', '1:4!']],
  ])('%s', (_n, input, want) => {
    expect(show(pruneFrameQueue(input))).toEqual(want);
  });
});

describe('FrameQueue', () => {
  it('drops malformed batcher data whole and keeps going', async () => {
    const src = new ScriptedData(l1(1));
    const q = new FrameQueue(rollupConfig(), src);
    src.queue.push(Uint8Array.of(1, 2, 3), encodeBatcherData([frame(1, 0), frame(1, 1, true)]));
    expect((await q.nextFrame())?.number).toBe(0);
    expect((await q.nextFrame())?.number).toBe(1);
    expect(await q.nextFrame()).toBeUndefined();
    expect(q.stats.dataDropped).toBe(1);
  });

  it('prunes only once Holocene is active at the origin', async () => {
    const data = encodeBatcherData([frame(1, 0), frame(1, 2, true)]);
    const before = new FrameQueue(
      rollupConfig({ regolith: 0, canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0, holocene: 1000 }),
      new ScriptedData(l1(1)),
    );
    before.load(data);
    expect(before.length).toBe(2);
    const after = new FrameQueue(
      rollupConfig({ regolith: 0, canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0, holocene: 0 }),
      new ScriptedData(l1(1)),
    );
    after.load(data);
    expect(after.length).toBe(1);
    expect(after.stats.framesPruned).toBe(1);
  });
});
