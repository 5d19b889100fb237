// Full sync to one target block (a hash, as the consensus node or --synctarget names it), in two passes:
//
// 1. Skeleton, backwards from the target: header batches by number, several requested ahead from different peers,
//    verified top-down — the first header must hash to the target, every next one to its child's parentHash — until
//    a header whose parent this node has state for (the common ancestor). Only the hashes are kept (32 bytes a block),
//    so memory stays small for long gaps. A batch that does not link is asked again by hash from another peer (a
//    peer on another branch answers nothing then); a batch that does not link to itself is bad data.
// 2. Fill, forwards from the ancestor: batches of headers (asked by hash, each must be the skeleton's) and their
//    bodies (each checked against its header's roots), several batches in flight on different peers, at most
//    `window` blocks held; blocks are imported in order through the pipelined BlockImporter (header rules, execution,
//    receipts and state root are checked there), a chunk at a time under the chain lock so Engine API calls interleave.
//
// Every request runs under a timeout; a peer that sends bad data is penalised and the batch goes to another peer,
// one that has nothing or times out is skipped for that batch. Receipts are not downloaded: blocks are executed.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { Block } from '../../primitives/block/block.js';
import { decodeHeader, type Header, headerHash } from '../../primitives/block/header.js';
import { equalBytes, toHex } from '../../primitives/bytes.js';
import type { ChainStore } from '../chain/chainStore.js';
import type { ChainBlock } from '../chain/importChain.js';
import type { SenderResult } from '../senders/interface.js';
import { blockFromBody } from './bodyCheck.js';
import type { SyncPeer } from './peer.js';
import type { PeerTracker } from './peerTracker.js';

export interface FullSyncLimits {
  /** Headers per skeleton request (geth's MaxHeaderFetch). */
  headerBatch: number;
  /** Skeleton batches requested ahead of the one being verified. */
  headerLookahead: number;
  /** Blocks per fill request, headers and bodies (geth's MaxBlockFetch). */
  bodyBatch: number;
  /** Blocks downloaded and not yet imported, at most (bounds memory). */
  window: number;
  /** Blocks imported per turn of the chain lock. */
  importChunk: number;
  /** Wait before asking again when no peer could answer. */
  retryMs: number;
  /** Least time between two "Imported new chain segment" lines. */
  logIntervalMs: number;
}

export const fullSyncDefaults: FullSyncLimits = {
  headerBatch: 192,
  headerLookahead: 4,
  bodyBatch: 128,
  window: 2048,
  importChunk: 64,
  retryMs: 1000,
  logIntervalMs: 8000,
};

/** eth_syncing's block numbers. */
export interface SyncProgress {
  startingBlock: bigint;
  currentBlock: bigint;
  highestBlock: bigint;
}

export interface FullSyncDeps {
  peers: PeerTracker;
  store: ChainStore;
  /**
   * Makes consecutive blocks after `parent` canonical, pipelined, and returns the last one's hash (the block
   * executor's importChain: on the executor thread when the node runs one).
   */
  importChain: (parent: Uint8Array, blocks: readonly ChainBlock[]) => Promise<Uint8Array>;
  logger: Logger;
  /** Runs `fn` holding the chain lock (the Engine API's queue): imports and setHead happen under it. */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Sender recovery started as blocks arrive (a worker pool); without it the importer recovers them itself. */
  recoverSenders?: ((txs: readonly Uint8Array[]) => Promise<SenderResult[]>) | undefined;
  limits: FullSyncLimits;
  progress: (p: SyncProgress) => void;
}

export interface SyncTarget {
  hash: Uint8Array;
  /**
   * The target block when the caller has it (a newPayload's block, which peers may not have yet): its header is not
   * asked for and the block itself is imported last.
   */
  block?: Block | undefined;
}

/** The target's chain cannot be synced: its blocks are invalid, or it shares no block with this chain. */
export class SyncFailedError extends TernError {
  constructor(message: string) {
    super('SYNC_FAILED', message);
  }
}

/** What a peer sent is wrong (not merely missing): the peer is penalised. */
class BadPeerData extends Error {}

interface Fetched {
  block: Block;
  senders: Promise<SenderResult[]> | undefined;
}

/**
 * Syncs to `target`: resolves 'synced' with the target the head (or already stored with state), 'abandoned' when
 * `abandon()` turned true while the target's header was still unknown to every peer; rejects with SyncFailedError
 * for a target chain that cannot be imported, or the signal's reason when aborted.
 */
export async function fullSync(
  deps: FullSyncDeps,
  target: SyncTarget,
  signal: AbortSignal,
  abandon: () => boolean = () => false,
): Promise<'synced' | 'abandoned'> {
  return new FullSync(deps, signal).run(target, abandon);
}

class FullSync {
  private readonly log: Logger;
  /** Ends every request of this run when it ends (requests asked ahead and not needed, a failed run's downloads). */
  private readonly done = new AbortController();
  private readonly signal: AbortSignal;

  constructor(
    private readonly deps: FullSyncDeps,
    signal: AbortSignal,
  ) {
    this.log = deps.logger;
    this.signal = AbortSignal.any([signal, this.done.signal]);
  }

  async run(target: SyncTarget, abandon: () => boolean): Promise<'synced' | 'abandoned'> {
    try {
      return await this.runToTarget(target, abandon);
    } finally {
      this.done.abort(new Error('sync run ended'));
    }
  }

  private async runToTarget(target: SyncTarget, abandon: () => boolean): Promise<'synced' | 'abandoned'> {
    const { store } = this.deps;
    if (store.hasState(target.hash)) return 'synced';
    const header = target.block?.header ?? (await this.targetHeader(target.hash, abandon));
    if (header === undefined) return 'abandoned';
    const startingBlock = store.head().number;
    this.deps.progress({ startingBlock, currentBlock: startingBlock, highestBlock: header.number });
    this.log.info('Syncing to target', { number: header.number, hash: toHex(target.hash), head: startingBlock });
    const { ancestor, hashes } = await this.skeleton(header, target.hash);
    this.log.info('Found common ancestor', {
      number: ancestor.number,
      hash: toHex(ancestor.hash),
      blocks: hashes.length,
    });
    await this.fill(ancestor, hashes, startingBlock, header.number, target.block);
    return 'synced';
  }

  // ---- asking peers -------------------------------------------------------------------------------------------

  /**
   * Asks idle peers in turn until `check` accepts an answer: `check` returns undefined when the peer has nothing
   * useful (skipped for this question), throws BadPeerData for a wrong answer (peer penalised). When every peer was
   * skipped it waits and starts over; only the signal (or `giveUp`) ends the loop.
   */
  private async ask<R, T>(
    what: string,
    request: (peer: SyncPeer, signal: AbortSignal) => Promise<R>,
    check: (reply: R) => T | undefined,
    giveUp: () => boolean = () => false,
    signal: AbortSignal = this.signal,
  ): Promise<T | undefined> {
    const { peers, limits } = this.deps;
    const skipped = new Set<string>();
    for (;;) {
      signal.throwIfAborted();
      if (giveUp()) return undefined;
      const peer = peers.idle(skipped);
      if (peer === undefined) {
        if (peers.usable().every((p) => skipped.has(p.id))) {
          await peers.changed(limits.retryMs, signal);
          skipped.clear();
        } else await peers.changed(limits.retryMs, signal);
        continue;
      }
      let reply: R;
      try {
        reply = await peers.request(peer, (s) => request(peer, s), signal);
      } catch (err) {
        signal.throwIfAborted();
        this.log.debug('Sync request failed', { what, peer: peer.id.slice(0, 16), error: (err as Error).message });
        skipped.add(peer.id);
        continue;
      }
      try {
        const value = check(reply);
        if (value !== undefined) return value;
        skipped.add(peer.id);
      } catch (err) {
        if (!(err instanceof BadPeerData)) throw err;
        this.log.warn('Bad sync data from peer', { what, peer: peer.id.slice(0, 16), reason: err.message });
        peers.penalise(peer, `${what}: ${err.message}`);
      }
    }
  }

  private decodeHeaders(raw: Uint8Array[]): Header[] {
    return raw.map((r) => {
      try {
        return decodeHeader(r);
      } catch (err) {
        throw new BadPeerData(`undecodable header: ${(err as Error).message}`);
      }
    });
  }

  private async targetHeader(hash: Uint8Array, abandon: () => boolean): Promise<Header | undefined> {
    return this.ask(
      'target header',
      (p, s) => p.getBlockHeaders({ origin: hash, amount: 1, skip: 0, reverse: false }, s),
      (raw) => {
        if (raw.length === 0) return undefined;
        const [h] = this.decodeHeaders(raw.slice(0, 1));
        if (!equalBytes(headerHash(h!), hash)) throw new BadPeerData('header does not hash to the one asked');
        return h;
      },
      abandon,
    );
  }

  // ---- pass 1: skeleton ---------------------------------------------------------------------------------------

  /** Headers `top` down to `top - count + 1`, linked among themselves (not yet to anything known). */
  private fetchRange(top: bigint, count: number, anchor?: Uint8Array, signal = this.signal): Promise<Header[]> {
    const origin = anchor ?? top;
    return this.ask(
      `headers ${top - BigInt(count) + 1n}-${top}`,
      (p, s) => p.getBlockHeaders({ origin, amount: count, skip: 0, reverse: true }, s),
      (raw) => {
        if (raw.length < count) return undefined; // the peer does not have them all
        const headers = this.decodeHeaders(raw.slice(0, count));
        for (let i = 0; i < count; i++) {
          const h = headers[i]!;
          if (h.number !== top - BigInt(i))
            throw new BadPeerData(`header ${h.number} where ${top - BigInt(i)} was asked`);
          if (i > 0 && !equalBytes(headers[i - 1]!.parentHash, headerHash(h)))
            throw new BadPeerData(`header ${h.number} is not the parent of header ${h.number + 1n}`);
        }
        if (anchor !== undefined && !equalBytes(headerHash(headers[0]!), anchor))
          throw new BadPeerData('header does not hash to the one asked');
        return headers;
      },
      undefined,
      signal,
    ) as Promise<Header[]>;
  }

  /**
   * The target's chain back to the common ancestor: the ancestor, and the hashes of the blocks after it in
   * ascending order (the target last).
   */
  private async skeleton(
    target: Header,
    targetHash: Uint8Array,
  ): Promise<{ ancestor: { number: bigint; hash: Uint8Array }; hashes: Uint8Array[] }> {
    const { store, limits } = this.deps;
    const localHead = store.head().number;
    const batch = BigInt(limits.headerBatch);
    const descending: Uint8Array[] = [targetHash];
    const expected = target.parentHash;
    const top = target.number - 1n;
    if (store.hasState(expected)) return { ancestor: { number: top, hash: expected }, hashes: descending };
    if (target.number === 0n) throw new SyncFailedError('the target is another chain (its genesis is not ours)');
    const ranges = new Map<bigint, Promise<Header[]>>();
    // Batches asked ahead and not needed (below the ancestor) are dropped when the skeleton is done.
    const ahead = new AbortController();
    const aheadSignal = AbortSignal.any([this.signal, ahead.signal]);
    const request = (t: bigint) => {
      if (t < 0n || ranges.has(t)) return;
      const count = Number(t + 1n < batch ? t + 1n : batch);
      const p = this.fetchRange(t, count, undefined, aheadSignal);
      p.catch(() => {});
      ranges.set(t, p);
    };
    try {
      return await this.walkBack(ranges, request, expected, top, descending, localHead);
    } finally {
      ahead.abort(new Error('skeleton done'));
    }
  }

  private async walkBack(
    ranges: Map<bigint, Promise<Header[]>>,
    request: (top: bigint) => void,
    expectedHash: Uint8Array,
    topNumber: bigint,
    descending: Uint8Array[],
    localHead: bigint,
  ): Promise<{ ancestor: { number: bigint; hash: Uint8Array }; hashes: Uint8Array[] }> {
    const { store, limits } = this.deps;
    const batch = BigInt(limits.headerBatch);
    let expected = expectedHash;
    let top = topNumber;
    for (;;) {
      // Ask ahead only for batches that likely lie above the ancestor (the local head, barring a reorg).
      for (let i = 0n; i < BigInt(limits.headerLookahead); i++) {
        const t = top - i * batch;
        if (i === 0n || t > localHead) request(t);
      }
      let headers = await (ranges.get(top) as Promise<Header[]>);
      ranges.delete(top);
      if (!equalBytes(headerHash(headers[0]!), expected)) {
        // That peer is on another branch here: ask for this batch by the hash it must have.
        this.log.debug('Skeleton batch off the target chain, asking by hash', { top });
        headers = await this.fetchRange(top, headers.length, expected);
      }
      for (const h of headers) {
        descending.push(expected);
        expected = h.parentHash;
        if (store.hasState(expected)) {
          return { ancestor: { number: h.number - 1n, hash: expected }, hashes: descending.reverse() };
        }
        if (h.number === 0n) throw new SyncFailedError('the target is another chain (its genesis is not ours)');
      }
      top -= BigInt(headers.length);
    }
  }

  // ---- pass 2: fill and import --------------------------------------------------------------------------------

  /** Blocks `hashes[from..to)`, or a prefix of them (at least one): headers and bodies, each checked. */
  private async fetchBlocks(hashes: Uint8Array[], from: number, to: number): Promise<Block[]> {
    const want = hashes.slice(from, to);
    const headers = (await this.ask(
      `headers of blocks ${toHex(want[0]!).slice(0, 10)}+${want.length}`,
      (p, s) => p.getBlockHeaders({ origin: want[0]!, amount: want.length, skip: 0, reverse: false }, s),
      (raw) => {
        if (raw.length === 0) return undefined;
        const got = this.decodeHeaders(raw.slice(0, want.length));
        if (!equalBytes(headerHash(got[0]!), want[0]!)) throw new BadPeerData('header does not hash to the one asked');
        // The peer's canonical chain may leave the target's after the first: keep the part on it.
        let n = 1;
        while (n < got.length && equalBytes(headerHash(got[n]!), want[n]!)) n++;
        return got.slice(0, n);
      },
    )) as Header[];
    const config = this.deps.store.config();
    return (await this.ask(
      `bodies of blocks ${headers[0]!.number}-${headers[headers.length - 1]!.number}`,
      (p, s) =>
        p.getBlockBodies(
          headers.map((_, i) => want[i]!),
          s,
        ),
      (raw) => {
        if (raw.length === 0) return undefined;
        const blocks: Block[] = [];
        for (let i = 0; i < Math.min(raw.length, headers.length); i++) {
          const b = blockFromBody(config, headers[i]!, raw[i]!);
          if (typeof b === 'string') throw new BadPeerData(`block ${headers[i]!.number}: ${b}`);
          blocks.push(b);
        }
        return blocks;
      },
    )) as Block[];
  }

  private async fill(
    ancestor: { number: bigint; hash: Uint8Array },
    hashes: Uint8Array[],
    startingBlock: bigint,
    highestBlock: bigint,
    targetBlock: Block | undefined,
  ): Promise<void> {
    const { limits, peers } = this.deps;
    const total = hashes.length;
    const ready = new Map<number, Fetched>();
    // The target block handed in is not downloaded (the importer checks it like any other).
    let download = total;
    if (targetBlock !== undefined) {
      ready.set(total - 1, { block: targetBlock, senders: undefined });
      download--;
    }
    const pending: Array<{ from: number; to: number }> = [];
    for (let i = 0; i < download; i += limits.bodyBatch)
      pending.push({ from: i, to: Math.min(download, i + limits.bodyBatch) });
    const tasks = new Set<Promise<void>>();
    let inFlight = 0;
    let next = 0;
    let parent = ancestor.hash;
    const segment = { blocks: 0, txs: 0, gas: 0n, started: performance.now(), lastLog: performance.now() };
    try {
      while (next < total) {
        const parallel = Math.max(1, peers.usable().length);
        // The batch holding the next block to import is always let through, so a full window cannot stall.
        while (
          pending.length > 0 &&
          tasks.size < parallel &&
          (inFlight + ready.size < limits.window || pending[0]!.from === next)
        ) {
          const range = pending.shift()!;
          inFlight += range.to - range.from;
          const task = this.fetchBlocks(hashes, range.from, range.to).then((blocks) => {
            blocks.forEach((block, i) => {
              const senders = this.deps.recoverSenders?.(block.transactions);
              senders?.catch(() => {});
              ready.set(range.from + i, { block, senders });
            });
            // The part the peer did not send goes back, in order.
            if (range.from + blocks.length < range.to) {
              pending.push({ from: range.from + blocks.length, to: range.to });
              pending.sort((a, b) => a.from - b.from);
            }
          });
          const tracked = task.finally(() => {
            inFlight -= range.to - range.from;
            tasks.delete(tracked);
          });
          tasks.add(tracked);
        }
        if (ready.has(next)) {
          const chunk: Fetched[] = [];
          while (chunk.length < limits.importChunk && ready.has(next + chunk.length))
            chunk.push(ready.get(next + chunk.length)!);
          for (let i = 0; i < chunk.length; i++) ready.delete(next + i);
          parent = await this.importChunk(chunk, parent);
          next += chunk.length;
          for (const f of chunk) {
            segment.blocks++;
            segment.txs += f.block.transactions.length;
            segment.gas += f.block.header.gasUsed;
          }
          const last = chunk[chunk.length - 1]!.block.header;
          this.deps.progress({ startingBlock, currentBlock: last.number, highestBlock });
          const now = performance.now();
          if (next === total || now - segment.lastLog >= limits.logIntervalMs) {
            const secs = (now - segment.started) / 1000;
            this.log.info('Imported new chain segment', {
              number: last.number,
              hash: toHex(parent),
              blocks: segment.blocks,
              txs: segment.txs,
              mgas: (Number(segment.gas) / 1e6).toFixed(3),
              elapsed: `${secs.toFixed(3)}s`,
              mgasps: (Number(segment.gas) / 1e6 / Math.max(secs, 1e-9)).toFixed(3),
              target: highestBlock,
            });
            Object.assign(segment, { blocks: 0, txs: 0, gas: 0n, started: now, lastLog: now });
          }
          continue;
        }
        // A failed fetch can only be the signal's abort (ask retries everything else): it surfaces here.
        if (tasks.size === 0) throw new Error(`full sync stalled at block ${next} of ${total}`);
        await Promise.race(tasks);
      }
    } finally {
      for (const t of tasks) t.catch(() => {});
    }
  }

  /** Imports consecutive blocks after `parent` under the chain lock; returns the last one's hash. */
  private importChunk(chunk: Fetched[], parent: Uint8Array): Promise<Uint8Array> {
    const { importChain, exclusive } = this.deps;
    return exclusive(async () => {
      this.signal.throwIfAborted();
      try {
        return await importChain(parent, chunk);
      } catch (err) {
        // An invalid block arrives as InvalidBlockError inline, as a TernError with its code from the executor thread.
        if (err instanceof TernError && (err.code === 'BLOCK_INVALID' || err.code.startsWith('HEADER_')))
          throw new SyncFailedError(`the target chain is invalid: ${err.message}`);
        throw err;
      }
    });
  }
}
