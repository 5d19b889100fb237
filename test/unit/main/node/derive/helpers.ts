// Builders shared by the derive stage tests: frames, L1 refs, scripted sources.

import type { FrameSource, L1DataSource } from '../../../../../src/main/node/derive/frameQueue.js';
import type { L1BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { parseRollupConfig, type RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import type { Frame } from '../../../../../src/main/protocol/channel/frame.js';

export function id(n: number): Uint8Array {
  const b = new Uint8Array(16);
  b[15] = n;
  return b;
}

export function frame(ch: number, number: number, isLast = false, data: Uint8Array = Uint8Array.of(ch, number)): Frame {
  return { id: id(ch), number, data, isLast };
}

export function l1(number: number, timestamp = number * 12): L1BlockRef {
  const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  return { hash: h(number + 1), number, parentHash: h(number), timestamp };
}

/** A test rollup config; forks are given as times, everything else fixed. */
export function rollupConfig(forks: Record<string, number> = {}): RollupConfig {
  return parseRollupConfig({
    genesis: {
      l1: { hash: `0x${'11'.repeat(32)}`, number: 0 },
      l2: { hash: `0x${'22'.repeat(32)}`, number: 0 },
      l2_time: 1000,
      system_config: {
        batcherAddr: `0x${'aa'.repeat(20)}`,
        overhead: `0x${'00'.repeat(32)}`,
        scalar: `0x${'00'.repeat(31)}01`,
        gasLimit: 30000000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 100,
    channel_timeout: 5,
    l1_chain_id: 900,
    l2_chain_id: 901,
    batch_inbox_address: `0x${'ff'.repeat(20)}`,
    deposit_contract_address: `0x${'dd'.repeat(20)}`,
    ...Object.fromEntries(Object.entries(forks).map(([k, v]) => [`${k}_time`, v])),
  });
}

/** Frames handed out one by one at a settable origin. */
export class ScriptedFrames implements FrameSource {
  queue: Frame[] = [];
  constructor(public ref: L1BlockRef) {}
  origin(): L1BlockRef {
    return this.ref;
  }
  async nextFrame(): Promise<Frame | undefined> {
    return this.queue.shift();
  }
}

export class ScriptedData implements L1DataSource {
  queue: Uint8Array[] = [];
  constructor(public ref: L1BlockRef) {}
  origin(): L1BlockRef {
    return this.ref;
  }
  async nextData(): Promise<Uint8Array | undefined> {
    return this.queue.shift();
  }
}
