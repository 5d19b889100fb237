// A scripted batch source and L2 chain for the batch queue / batch stage / attributes queue tests: the L1 origin
// moves block by block as a pipeline would move it (only once the stage under test has nothing more), and each L1
// block hands out the batches scripted for it, grouped in channels (flushChannel drops the rest of the current one).
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import type { BatchSource, NextBatch, SingularBatchProvider } from '../../../../../src/main/node/derive/batchQueue.js';
import type { Batch, SafeBlockFetcher, SpanBatchView } from '../../../../../src/main/node/derive/batchValidator.js';
import {
  type DropCounter,
  fromHex,
  type L1BlockRef,
  type L2BlockRef,
  toHex,
} from '../../../../../src/main/node/derive/types.js';
import type { RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import type { SingularBatch } from '../../../../../src/main/protocol/batch/singularBatch.js';

export const L1_TIME0 = 1000;

/** L1 block n (genesis L1 is 0), 12 s apart from the L2 genesis time. */
export function L1(n: number, fork = 0): L1BlockRef {
  const h = (k: number, f: number) => toHex(keccak256(new TextEncoder().encode(`l1-${f}-${k}`)));
  return { number: n, hash: h(n, fork), parentHash: h(n - 1, fork), timestamp: L1_TIME0 + 12 * n };
}

export function l2Genesis(cfg: RollupConfig): L2BlockRef {
  return {
    hash: cfg.genesis.l2.hash,
    number: cfg.genesis.l2.number,
    parentHash: `0x${'00'.repeat(32)}`,
    timestamp: cfg.genesis.l2Time,
    l1origin: { hash: L1(0).hash, number: 0 },
    sequenceNumber: 0,
  };
}

/** The L2 block a batch makes on top of `parent`. */
export function child(parent: L2BlockRef, b: SingularBatch): L2BlockRef {
  return {
    hash: toHex(keccak256(new TextEncoder().encode(`l2-${parent.hash}-${b.timestamp}-${b.transactions.length}`))),
    number: parent.number + 1,
    parentHash: parent.hash,
    timestamp: b.timestamp,
    l1origin: { number: b.epochNum, hash: toHex(b.epochHash) },
    sequenceNumber: b.epochNum === parent.l1origin.number ? parent.sequenceNumber + 1 : 0,
  };
}

export function batch(
  parent: L2BlockRef,
  epoch: number,
  txs: Uint8Array[] = [],
  o: Partial<SingularBatch> = {},
): SingularBatch {
  return {
    parentHash: fromHex(parent.hash),
    epochNum: epoch,
    epochHash: fromHex(L1(epoch).hash),
    timestamp: parent.timestamp + 2,
    transactions: txs,
    ...o,
  };
}

/** Consecutive batches on top of `head`, one per epoch given; batch i carries `txs(i)`. */
export function consecutiveBatches(head: L2BlockRef, epochs: number[], txs = (i: number) => [tx(i)]): SingularBatch[] {
  const out: SingularBatch[] = [];
  let cur = head;
  for (const [i, e] of epochs.entries()) {
    const b = batch(cur, e, txs(i));
    out.push(b);
    cur = child(cur, b);
  }
  return out;
}

export const S = (b: SingularBatch): Batch => ({ type: 'singular', batch: b });

/** A span batch view of consecutive blocks (timestamps and epochs given; checks from `parent` and the last epoch). */
export function spanOf(
  parent: L2BlockRef,
  els: Array<{ epoch: number; txs?: Uint8Array[]; timestamp?: number }>,
  o: Partial<SpanBatchView> = {},
): Batch {
  const last = els[els.length - 1] as { epoch: number };
  return {
    type: 'span',
    batch: {
      parentCheck: fromHex(parent.hash).slice(0, 20),
      l1OriginCheck: fromHex(L1(last.epoch).hash).slice(0, 20),
      batches: els.map((e, i) => ({
        epochNum: e.epoch,
        timestamp: e.timestamp ?? parent.timestamp + 2 * (i + 1),
        transactions: e.txs ?? [],
      })),
      ...o,
    },
  };
}

export class ScriptedBatches implements BatchSource {
  /** Channels per L1 block number, each a list of batches. */
  script = new Map<number, Batch[][]>();
  private channels: Batch[][] = [];
  flushes = 0;
  constructor(public ref: L1BlockRef) {
    this.load();
  }

  private load(): void {
    this.channels = (this.script.get(this.ref.number) ?? []).map((c) => [...c]);
  }

  /** Scripts channels for L1 block `n` (call before the origin gets there; for the current block, it reloads). */
  at(n: number, ...channels: Batch[][]): this {
    this.script.set(n, channels);
    if (n === this.ref.number) this.load();
    return this;
  }

  origin(): L1BlockRef {
    return this.ref;
  }

  advance(): void {
    this.ref = L1(this.ref.number + 1);
    this.load();
  }

  async nextBatch(): Promise<Batch | undefined> {
    while (this.channels.length > 0) {
      const ch = this.channels[0] as Batch[];
      const b = ch.shift();
      if (b !== undefined) return b;
      this.channels.shift();
    }
    return undefined;
  }

  flushChannel(): void {
    this.flushes++;
    this.channels.shift();
  }
}

export class RecordingDrops implements DropCounter {
  reasons: string[] = [];
  drop(_kind: string, reason: string): void {
    this.reasons.push(reason);
  }
}

export interface Derived {
  batch: SingularBatch;
  last: boolean;
  /** The L1 block the stage was at when it returned the batch. */
  origin: number;
}

/**
 * Runs the stage the way the pipeline does: ask for the next batch on top of the L2 head; when there is none, move
 * the L1 origin on, until L1 block `untilL1` has been read. Returns the batches in order and the final head.
 */
export async function run(
  stage: SingularBatchProvider,
  src: ScriptedBatches,
  head: L2BlockRef,
  untilL1: number,
  maxBlocks = 1000,
): Promise<{ out: Derived[]; head: L2BlockRef }> {
  const out: Derived[] = [];
  let cur = head;
  for (let guard = 0; guard < 100_000 && out.length < maxBlocks; guard++) {
    const next: NextBatch | undefined = await stage.nextBatch(cur);
    if (next === undefined) {
      if (src.ref.number >= untilL1) break;
      src.advance();
      continue;
    }
    out.push({ ...next, origin: src.ref.number });
    if (toHex(next.batch.parentHash) !== cur.hash)
      throw new Error(`batch at ${next.batch.timestamp} does not build on the head`);
    cur = child(cur, next.batch);
  }
  return { out, head: cur };
}

/** L2 reads for span batches overlapping the safe chain, served from the blocks `run` built. */
export class ChainFetcher implements SafeBlockFetcher {
  blocks = new Map<number, { ref: L2BlockRef; transactions: readonly Uint8Array[] }>();
  add(ref: L2BlockRef, transactions: readonly Uint8Array[]): void {
    this.blocks.set(ref.number, { ref, transactions });
  }
  async l2BlockRefByNumber(num: number): Promise<L2BlockRef> {
    const b = this.blocks.get(num);
    if (b === undefined) throw new Error(`no L2 block ${num}`);
    return b.ref;
  }
  async l2BlockByNumber(num: number): Promise<{ ref: L2BlockRef; transactions: readonly Uint8Array[] }> {
    const b = this.blocks.get(num);
    if (b === undefined) throw new Error(`no L2 block ${num}`);
    return b;
  }
}

export const tx = (n: number) => Uint8Array.of(0x02, n);
