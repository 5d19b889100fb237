// --history.logs.export: geth's log index checkpoint export (core/filtermaps exportCheckpoints). geth's log index
// places every log value on one line: a block's logs give one value for the address and one per topic, each block
// but the head ends with a delimiter value, and a log that would straddle a map boundary (2^16 values) starts at the
// next map instead. Maps are grouped in epochs of 2^10 maps. For each epoch that ends before the finalized block
// (before the first log value of the block after it), a checkpoint names the block owning the epoch's last map's
// boundary (geth's "last block of map": the block of the last value its renderer reached, the first value past the
// map unless that is padding), its hash, and the
// first log value index of that block. geth rewrites the file, as a JSON list in the format of its
// checkpoints_*.json, each time the finalized block moves and the count of such epochs changed; the node keeps
// running. tern's own log index has another layout (./logIndex.ts), so the positions are computed here from the
// receipts, walking the canonical chain once forward (one batch of blocks per step of the history service).
import { writeFileSync } from 'node:fs';
import type { Logger } from '../../common/logger/index.js';
import { readBlock, readReceipts } from '../chain/chainStore.js';
import * as chain from '../db/chain.js';
import type { Database } from '../db/open.js';

/** geth's filtermaps.Params fields that place log values (DefaultParams: 2^16 values a map, 2^10 maps an epoch). */
export interface LogValueParams {
  logValuesPerMap: number;
  logMapsPerEpoch: number;
}

export const defaultLogValueParams: LogValueParams = { logValuesPerMap: 16, logMapsPerEpoch: 10 };

export interface LogCheckpoint {
  blockNumber: number;
  blockId: Uint8Array;
  firstIndex: number;
}

/** The log values of one block: its logs' sizes (1 + topics) in order. */
type BlockLogs = readonly number[];

/** Where one block's values lie: its first log value index (geth's block lv pointer) and its span. */
export interface BlockSpan {
  /** The position right after the previous block's delimiter (0 for genesis): where this block's span starts. */
  start: number;
  /** geth's block lv pointer: `start`, or the next map boundary when the first log does not fit in this map. */
  pointer: number;
  /** The position after this block's last value (its delimiter included, when it has one). */
  end: number;
}

/** Places one block's values from `start`; `delimiter` is false only for the head block. */
export function placeBlock(start: number, logs: BlockLogs, delimiter: boolean, params: LogValueParams): BlockSpan {
  const perMap = 2 ** params.logValuesPerMap;
  let lv = start;
  let pointer: number | undefined;
  for (const n of logs) {
    const room = perMap - (lv % perMap);
    if (n > room) lv += room;
    pointer ??= lv;
    lv += n;
  }
  return { start, pointer: pointer ?? start, end: lv + (delimiter ? 1 : 0) };
}

/** geth's checkpoint file text: a JSON list, one checkpoint a line. */
export function formatCheckpoints(list: readonly LogCheckpoint[]): string {
  const lines = list.map(
    (c, i) =>
      `{"blockNumber": ${c.blockNumber}, "blockId": "0x${Buffer.from(c.blockId).toString('hex').padStart(64, '0')}", ` +
      `"firstIndex": ${c.firstIndex}}${i === list.length - 1 ? '' : ','}\n`,
  );
  return `[\n${lines.join('')}]\n`;
}

export interface CheckpointExportOptions {
  file: string;
  params?: LogValueParams | undefined;
  /** Blocks walked per step. */
  batchBlocks: number;
}

/** The export task of the history service: step() walks the chain up to the finalized block and rewrites the file. */
export class LogCheckpointExporter {
  readonly #params: LogValueParams;
  /** The next block to place, and where its span starts; blocks before it are final (at or below finalized). */
  #next = 0;
  #lv = 0;
  /** Each epoch's boundary owner, found while walking: epoch → checkpoint. */
  readonly #found: LogCheckpoint[] = [];
  #lastFinal: number | undefined;
  #lastEpochs = 0;

  constructor(
    private readonly db: Database,
    private readonly opts: CheckpointExportOptions,
    private readonly logger?: Logger,
  ) {
    this.#params = opts.params ?? defaultLogValueParams;
  }

  get #epochBits(): number {
    return this.#params.logValuesPerMap + this.#params.logMapsPerEpoch;
  }

  #logsOf(number: number): { hash: Uint8Array; logs: number[] } | undefined {
    const hash = chain.readCanonicalHash(this.db, number);
    if (hash === undefined) return undefined;
    const receipts = readReceipts(this.db, BigInt(number), hash);
    if (receipts === undefined) {
      // Only a block without transactions may have no stored receipts list.
      const block = readBlock(this.db, hash);
      if (block === undefined || block.transactions.length > 0) return undefined;
      return { hash, logs: [] };
    }
    return { hash, logs: receipts.flatMap((r) => r.logs.map((l) => 1 + l.topics.length)) };
  }

  /** The last block placed (the owner of a boundary that falls in the next block's leading padding). */
  #prev: LogCheckpoint | undefined;

  /**
   * Records the epochs whose boundary falls in this block's span. geth takes the block of the last value its
   * renderer stepped onto that is not padding, so a boundary inside the padding before a block's first log (only
   * possible with a log longer than a map) belongs to the block before.
   */
  #collect(number: number, hash: Uint8Array, span: BlockSpan, into: LogCheckpoint[], head = false): void {
    const size = 2 ** this.#epochBits;
    const self = { blockNumber: number, blockId: hash, firstIndex: span.pointer };
    const prev = this.#prev;
    // The head has no delimiter, but geth's iterator stands (finished) on the position after its last value.
    const reach = head ? span.end + 1 : span.end;
    for (let e = into.length; (e + 1) * size < reach && (e + 1) * size >= span.start; e++) {
      into.push((e + 1) * size < span.pointer && prev !== undefined ? prev : self);
    }
  }

  /** One step: true when there is more to walk. */
  async step(): Promise<boolean> {
    const finalHash = chain.readFinalizedBlockHash(this.db);
    const final = finalHash === undefined ? undefined : chain.readHeaderNumber(this.db, finalHash);
    if (final === undefined) return false;
    const head = chain.readHeadBlockHash(this.db);
    const headNumber = head === undefined ? undefined : chain.readHeaderNumber(this.db, head);
    if (headNumber === undefined || headNumber <= final) return false; // geth needs the block after the finalized
    // Walk the final blocks (their spans never change).
    const stop = Math.min(final, this.#next + this.opts.batchBlocks - 1);
    for (; this.#next <= stop; this.#next++) {
      const b = this.#logsOf(this.#next);
      if (b === undefined) {
        this.logger?.warn('Log index checkpoints: receipts missing', { block: this.#next });
        return false;
      }
      const span = placeBlock(this.#lv, b.logs, true, this.#params);
      this.#collect(this.#next, b.hash, span, this.#found);
      this.#prev = { blockNumber: this.#next, blockId: b.hash, firstIndex: span.pointer };
      this.#lv = span.end;
    }
    if (this.#next <= final) return true;
    if (final === this.#lastFinal) return false;
    this.#lastFinal = final;
    // The block after the finalized one: its pointer ends the exported range (its span may own a boundary too).
    const after = this.#logsOf(final + 1);
    if (after === undefined) return false;
    const isHead = final + 1 === headNumber;
    const span = placeBlock(this.#lv, after.logs, !isHead, this.#params);
    const epochs = Math.floor(span.pointer / 2 ** this.#epochBits);
    if (epochs === this.#lastEpochs) return false;
    const list = [...this.#found];
    this.#collect(final + 1, after.hash, span, list, isHead);
    if (list.length < epochs) return false;
    try {
      writeFileSync(this.opts.file, formatCheckpoints(list.slice(0, epochs)));
    } catch (err) {
      this.logger?.error('Error creating checkpoint export file', {
        name: this.opts.file,
        error: (err as NodeJS.ErrnoException).code ?? String(err),
      });
      return false;
    }
    this.logger?.info('Exporting log index checkpoints', { epochs, file: this.opts.file });
    this.#lastEpochs = epochs;
    return false;
  }
}
