// Where gossiped and requested blocks meet the engine (op-node's unsafe payload queue plus the sync client's gap
// filling): a block that extends the unsafe head is inserted at once; a block further ahead waits, and the gap
// below it is requested over req-resp from the newest missing block down, each answer checked against its
// child's parentHash, trying the next peer when one fails or has nothing. Blocks at or below the head are dropped.
// While the engine syncs itself (--syncmode execution-layer, op-node's ELSync), the newest block goes to the engine
// as is and nothing is requested over req-resp: the engine fetches the blocks below it from its own peers.
import type { Logger } from '../../common/logger/index.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { L2BlockRef } from '../../primitives/rollup/blockRef.js';
import type { ExecutionPayload } from '../engine/interface.js';

export interface UnsafeBlock {
  payload: ExecutionPayload;
  parentBeaconBlockRoot: Uint8Array | undefined;
}

export interface UnsafeSyncDeps {
  logger: Logger;
  /** The unsafe head, or undefined before the engine controller knows it. */
  unsafeHead(): L2BlockRef | undefined;
  /**
   * Whether the engine is syncing itself (EL sync not finished): blocks then go to the engine whether or not they
   * extend the unsafe head, and no gap is filled over req-resp (op-node resets its alt-sync while derivation waits).
   */
  engineSyncing?: (() => boolean) | undefined;
  /** Inserts a block (under the driver's lock): one that extends the unsafe head, or any block during EL sync. */
  insert(block: UnsafeBlock): Promise<void>;
  /** Fetches block `num` from some peer, or undefined when no peer has it; undefined when req-resp is off. */
  fetch?:
    | ((num: bigint, exclude: Set<string>) => Promise<{ block: UnsafeBlock; peer: string } | undefined>)
    | undefined;
}

/** Blocks held ahead of the unsafe head (op-node bounds its queue by memory; a count is enough here). */
const MAX_PENDING = 512;
/** Blocks fetched per gap-filling round; the round repeats while a gap remains. */
const MAX_FETCH_PER_ROUND = 256;

export class UnsafeSync {
  readonly #deps: UnsafeSyncDeps;
  readonly #log: Logger;
  /** Pending blocks by hash. */
  readonly #pending = new Map<string, UnsafeBlock>();
  #running = false;
  #again = false;
  #filling = false;
  inserted = 0;
  fetched = 0;

  constructor(deps: UnsafeSyncDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child('unsafe-sync');
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /** A validated block from gossip. */
  add(block: UnsafeBlock): void {
    const head = this.#deps.unsafeHead();
    if (head !== undefined && block.payload.blockNumber <= BigInt(head.number)) return;
    if (this.#pending.size >= MAX_PENDING) {
      // Keep the newest blocks: drop the lowest.
      let lowest: [string, UnsafeBlock] | undefined;
      for (const e of this.#pending)
        if (!lowest || e[1].payload.blockNumber < lowest[1].payload.blockNumber) lowest = e;
      if (lowest) this.#pending.delete(lowest[0]);
    }
    this.#pending.set(hex(block.payload.blockHash), block);
    this.poke();
  }

  /** Tries to make progress (also called when the unsafe head moves by derivation). */
  poke(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    void this.#run().finally(() => {
      this.#running = false;
      if (this.#again) {
        this.#again = false;
        this.poke();
      }
    });
  }

  async #run(): Promise<void> {
    for (;;) {
      const head = this.#deps.unsafeHead();
      if (head === undefined) return;
      for (const [h, b] of this.#pending) if (b.payload.blockNumber <= BigInt(head.number)) this.#pending.delete(h);
      let next = [...this.#pending.values()].find((b) => hex(b.payload.parentHash) === head.hash);
      if (next === undefined && this.#deps.engineSyncing?.() === true) {
        // The newest block becomes the engine's sync target; the older ones are the engine's to fetch.
        next = this.#newest();
        if (next === undefined) return;
        for (const [h, b] of this.#pending)
          if (b.payload.blockNumber < next.payload.blockNumber) this.#pending.delete(h);
      }
      if (next === undefined) break;
      this.#pending.delete(hex(next.payload.blockHash));
      try {
        await this.#deps.insert(next);
        this.inserted++;
      } catch (err) {
        this.#log.warn('Engine refused an unsafe block', {
          number: Number(next.payload.blockNumber),
          hash: hex(next.payload.blockHash),
          err: (err as Error).message,
        });
        return;
      }
    }
    if (this.#deps.engineSyncing?.() === true) return;
    if (this.#pending.size > 0 && this.#deps.fetch !== undefined && !this.#filling) {
      this.#filling = true;
      void this.#fillGap().finally(() => {
        this.#filling = false;
      });
    }
  }

  #newest(): UnsafeBlock | undefined {
    let newest: UnsafeBlock | undefined;
    for (const b of this.#pending.values())
      if (!newest || b.payload.blockNumber > newest.payload.blockNumber) newest = b;
    return newest;
  }

  /** Requests the blocks between the unsafe head and the lowest pending block, newest first. */
  async #fillGap(): Promise<void> {
    const fetch = this.#deps.fetch;
    const head = this.#deps.unsafeHead();
    if (fetch === undefined || head === undefined) return;
    let lowest: UnsafeBlock | undefined;
    for (const b of this.#pending.values())
      if (!lowest || b.payload.blockNumber < lowest.payload.blockNumber) lowest = b;
    if (lowest === undefined) return;
    let want = lowest.payload.blockNumber - 1n;
    let wantHash = hex(lowest.payload.parentHash);
    const stopAt = BigInt(head.number);
    this.#log.info('Filling an unsafe gap over req-resp', { from: head.number + 1, to: Number(want) });
    const fetched: UnsafeBlock[] = [];
    while (want > stopAt && fetched.length < MAX_FETCH_PER_ROUND) {
      const exclude = new Set<string>();
      let got: UnsafeBlock | undefined;
      // Try each peer that answers until one returns the block with the expected hash.
      for (let attempt = 0; attempt < 8 && got === undefined; attempt++) {
        const r = await fetch(want, exclude);
        if (r === undefined) break;
        if (hex(r.block.payload.blockHash) === wantHash) got = r.block;
        else {
          this.#log.warn('Peer answered a block off the chain we follow', { peer: r.peer, number: Number(want) });
          exclude.add(r.peer);
        }
      }
      if (got === undefined) {
        this.#log.debug('No peer could serve a missing block, will retry', { number: Number(want) });
        break;
      }
      fetched.push(got);
      this.fetched++;
      want -= 1n;
      wantHash = hex(got.payload.parentHash);
    }
    for (const b of fetched) this.#pending.set(hex(b.payload.blockHash), b);
    if (fetched.length > 0) this.poke();
  }
}
