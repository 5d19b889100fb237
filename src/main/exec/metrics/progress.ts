// tern-exec's progress lines, geth's way. Every move of the canonical head (block import, the Engine API's
// forkchoiceUpdated, the --dev sealer) arrives as a head event; each is logged at debug ("Chain head was
// updated"), and while the head keeps moving an info line sums up the blocks since the last one, at most every
// 8 s (geth's statsReportLimit): "Imported new chain segment" with number, hash, blocks, txs, mgas, elapsed,
// Mgas/s and blocks/s.
import type { Logger } from '../../common/logger/index.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { NewHeadEvent } from '../chain/headEvents.js';

export interface ChainProgressOptions {
  /** Least time between two segment lines (geth's statsReportLimit). */
  intervalMs?: number;
  /** A head jump longer than this is counted in blocks only: reading that many bodies would stall the thread. */
  maxBodiesPerJump?: number;
}

export const chainProgressDefaults = { intervalMs: 8000, maxBodiesPerJump: 256 } as const;

/** What the reporter reads of a canonical block it did not get in the event (a head jump, transaction counts). */
export interface ChainProgressSource {
  /** Transactions in the block with this hash, if known. */
  txCount(hash: Uint8Array): number | undefined;
  /** The canonical block at `number`: gas used and transaction count. */
  canonical(number: bigint): { gasUsed: bigint; txs: number } | undefined;
}

export interface ChainProgressDeps {
  logger: Logger;
  source?: ChainProgressSource | undefined;
  /** Milliseconds clock (tests move it). */
  now?: () => number;
}

const round = (n: number, digits: number): number => Number(n.toFixed(digits));

export class ChainProgress {
  readonly #opts: Required<ChainProgressOptions>;
  readonly #log: Logger;
  readonly #source: ChainProgressSource | undefined;
  readonly #now: () => number;
  #last: bigint | undefined;
  #blocks = 0;
  #txs = 0;
  #gas = 0n;
  #since: number;

  constructor(opts: ChainProgressOptions, deps: ChainProgressDeps) {
    this.#opts = { ...chainProgressDefaults, ...opts };
    this.#log = deps.logger;
    this.#source = deps.source;
    this.#now = deps.now ?? Date.now;
    this.#since = this.#now();
  }

  /** Subscribe this to the database's head events. */
  onHead(ev: NewHeadEvent): void {
    const prev = this.#last;
    this.#last = ev.number;
    const now = this.#now();
    const txs = this.#source?.txCount(ev.hash);
    if (this.#log.isEnabled('debug')) {
      this.#log.debug('Chain head was updated', {
        number: Number(ev.number),
        hash: hex(ev.hash),
        root: hex(ev.header.stateRoot),
        ...(txs !== undefined ? { txs } : {}),
        gas: Number(ev.header.gasUsed),
        age: ageString(now / 1000 - Number(ev.header.timestamp)),
      });
    }
    if (prev === undefined || ev.number <= prev) {
      // The first head seen, or a rewind: a new segment starts here.
      this.#reset(now);
      return;
    }
    const jump = ev.number - prev;
    this.#blocks += Number(jump);
    this.#gas += ev.header.gasUsed;
    this.#txs += txs ?? 0;
    if (jump > 1n && this.#source !== undefined && jump <= BigInt(this.#opts.maxBodiesPerJump)) {
      for (let n = prev + 1n; n < ev.number; n++) {
        const b = this.#source.canonical(n);
        if (b === undefined) continue;
        this.#gas += b.gasUsed;
        this.#txs += b.txs;
      }
    }
    if (now - this.#since >= this.#opts.intervalMs) this.#report(ev, now);
  }

  #report(ev: NewHeadEvent, now: number): void {
    const seconds = Math.max((now - this.#since) / 1000, 1e-3);
    const mgas = Number(this.#gas) / 1e6;
    this.#log.info('Imported new chain segment', {
      number: Number(ev.number),
      hash: hex(ev.hash),
      blocks: this.#blocks,
      txs: this.#txs,
      mgas: round(mgas, 3),
      elapsed: `${round(seconds, 3)}s`,
      mgasps: round(mgas / seconds, 3),
      bps: round(this.#blocks / seconds, 3),
      age: ageString(now / 1000 - Number(ev.header.timestamp)),
    });
    this.#reset(now);
  }

  #reset(now: number): void {
    this.#blocks = 0;
    this.#txs = 0;
    this.#gas = 0n;
    this.#since = now;
  }
}

/** geth's common.PrettyAge, coarsely: how old the head block is. */
export function ageString(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h`;
}
