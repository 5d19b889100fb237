// The --dev chain's stand-in for a beacon chain: one beacon block per sealed execution block, at the slot its
// timestamp gives (slot = (timestamp − genesis time) / SECONDS_PER_SLOT, exact because the sealer only uses whole
// slots), with the sidecars of the blob transactions it carries. Roots are real SSZ hash-tree-roots of a
// BeaconBlockHeader whose state_root is the execution state root and whose body_root is the execution block hash,
// so they are deterministic: the record can be rebuilt from the chain after a restart, with the sidecars a
// DevSidecarStore kept on disk.
// A dev-chain reorg rewinds the record to the common ancestor (rewind) before the replacement blocks are added.
import { createHash } from 'node:crypto';
import { TernError } from '../../common/errors.js';

export interface DevBlobSidecar {
  readonly blob: Uint8Array;
  readonly commitment: Uint8Array;
  readonly proof: Uint8Array;
  /** 0x01 ‖ sha256(commitment)[1:] */
  readonly versionedHash: Uint8Array;
}

export interface BeaconBlockHeader {
  readonly slot: bigint;
  readonly proposerIndex: bigint;
  readonly parentRoot: Uint8Array;
  readonly stateRoot: Uint8Array;
  readonly bodyRoot: Uint8Array;
}

export interface DevBeaconBlock {
  readonly header: BeaconBlockHeader;
  readonly root: Uint8Array;
  readonly blockNumber: bigint;
  readonly blockHash: Uint8Array;
  /** Dropped (undefined) once the retention budget is used by newer blobs. */
  sidecars: readonly DevBlobSidecar[] | undefined;
}

/** The execution block a beacon block wraps. */
export interface ExecutionBlockRef {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly timestamp: bigint;
  readonly stateRoot: Uint8Array;
}

export interface DevBeaconOptions {
  genesisTime: bigint;
  secondsPerSlot: number;
  /** Blob bytes kept in memory; older blocks lose their sidecars first. */
  maxBlobBytes?: number;
  /** Told when a block's sidecars are let go (retention, reorg), so a copy on disk can go too. */
  onSidecarsDropped?: (block: DevBeaconBlock) => void;
}

export const devBeaconDefaults = { maxBlobBytes: 1 << 30 } as const;

const sha256 = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

const uint64Leaf = (n: bigint): Uint8Array => {
  const leaf = new Uint8Array(32);
  new DataView(leaf.buffer).setBigUint64(0, n, true);
  return leaf;
};

/** SSZ hash_tree_root of a BeaconBlockHeader: five 32-byte leaves padded to eight, merkleized with sha256. */
export function beaconHeaderRoot(h: BeaconBlockHeader): Uint8Array {
  let layer = [uint64Leaf(h.slot), uint64Leaf(h.proposerIndex), h.parentRoot, h.stateRoot, h.bodyRoot];
  while (layer.length < 8) layer.push(new Uint8Array(32));
  while (layer.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < layer.length; i += 2) next.push(sha256(layer[i]!, layer[i + 1]!));
    layer = next;
  }
  return layer[0]!;
}

export function versionedHash(commitment: Uint8Array): Uint8Array {
  const h = sha256(commitment);
  h[0] = 1;
  return h;
}

const key = (b: Uint8Array) => Buffer.from(b).toString('hex');

export class DevBeacon {
  readonly genesisTime: bigint;
  readonly secondsPerSlot: number;
  readonly #maxBlobBytes: number;
  readonly #onDropped: ((block: DevBeaconBlock) => void) | undefined;
  readonly #bySlot = new Map<bigint, DevBeaconBlock>();
  readonly #byRoot = new Map<string, DevBeaconBlock>();
  readonly #byNumber = new Map<bigint, DevBeaconBlock>();
  /** Slots holding sidecars, oldest first, for retention. */
  readonly #withBlobs: bigint[] = [];
  #blobBytes = 0;
  #head: DevBeaconBlock | undefined;

  constructor(opts: DevBeaconOptions) {
    if (!Number.isSafeInteger(opts.secondsPerSlot) || opts.secondsPerSlot <= 0)
      throw new TernError('DEV_BEACON', `seconds per slot must be a positive integer, got ${opts.secondsPerSlot}`);
    this.genesisTime = opts.genesisTime;
    this.secondsPerSlot = opts.secondsPerSlot;
    this.#maxBlobBytes = opts.maxBlobBytes ?? devBeaconDefaults.maxBlobBytes;
    this.#onDropped = opts.onSidecarsDropped;
  }

  /** The slot of a block time; throws when the time is not on a slot boundary (the sealer never makes one). */
  slotOf(timestamp: bigint): bigint {
    const offset = timestamp - this.genesisTime;
    const sps = BigInt(this.secondsPerSlot);
    if (offset < 0n || offset % sps !== 0n)
      throw new TernError(
        'DEV_BEACON',
        `block time ${timestamp} is not on a slot boundary (genesis ${this.genesisTime}, ${sps} s per slot)`,
      );
    return offset / sps;
  }

  /** The timestamp of a slot. */
  timeOf(slot: bigint): bigint {
    return this.genesisTime + slot * BigInt(this.secondsPerSlot);
  }

  /** The root the next sealed block carries as its parentBeaconBlockRoot (zero before genesis is added). */
  headRoot(): Uint8Array {
    return this.#head?.root ?? new Uint8Array(32);
  }

  head(): DevBeaconBlock | undefined {
    return this.#head;
  }

  /** Records the beacon block of the next execution block (in chain order, starting with genesis). */
  add(block: ExecutionBlockRef, sidecars: readonly DevBlobSidecar[] = []): DevBeaconBlock {
    const slot = this.slotOf(block.timestamp);
    if (this.#head && slot <= this.#head.header.slot)
      throw new TernError('DEV_BEACON', `slot ${slot} does not follow the head slot ${this.#head.header.slot}`);
    const header: BeaconBlockHeader = {
      slot,
      proposerIndex: 0n,
      parentRoot: this.headRoot(),
      stateRoot: block.stateRoot,
      bodyRoot: block.hash,
    };
    const out: DevBeaconBlock = {
      header,
      root: beaconHeaderRoot(header),
      blockNumber: block.number,
      blockHash: block.hash,
      sidecars,
    };
    this.#bySlot.set(slot, out);
    this.#byRoot.set(key(out.root), out);
    this.#byNumber.set(block.number, out);
    this.#head = out;
    if (sidecars.length > 0) {
      this.#withBlobs.push(slot);
      this.#blobBytes += sidecars.reduce((n, s) => n + s.blob.length, 0);
      this.#prune();
    }
    return out;
  }

  /**
   * Forgets the beacon blocks of execution blocks above `number` (a reorg took them off the chain), with their
   * sidecars; the block of `number` becomes the head, so the next block added may reuse the freed slots.
   */
  rewind(number: bigint): void {
    const head = this.#byNumber.get(number);
    if (head === undefined) throw new TernError('DEV_BEACON', `no beacon block wraps execution block ${number}`);
    for (const [n, b] of [...this.#byNumber]) {
      if (n <= number) continue;
      this.#byNumber.delete(n);
      this.#byRoot.delete(key(b.root));
      if (this.#bySlot.get(b.header.slot) === b) this.#bySlot.delete(b.header.slot);
      const at = this.#withBlobs.indexOf(b.header.slot);
      if (at >= 0) this.#withBlobs.splice(at, 1);
      if (b.sidecars && b.sidecars.length > 0) {
        this.#blobBytes -= b.sidecars.reduce((s, c) => s + c.blob.length, 0);
        this.#onDropped?.(b);
      }
      b.sidecars = undefined;
    }
    this.#head = head;
  }

  byNumber(number: bigint): DevBeaconBlock | undefined {
    return this.#byNumber.get(number);
  }

  #prune(): void {
    while (this.#blobBytes > this.#maxBlobBytes && this.#withBlobs.length > 1) {
      const b = this.#bySlot.get(this.#withBlobs.shift() as bigint);
      if (!b?.sidecars) continue;
      this.#blobBytes -= b.sidecars.reduce((n, s) => n + s.blob.length, 0);
      b.sidecars = undefined;
      this.#onDropped?.(b);
    }
  }

  bySlot(slot: bigint): DevBeaconBlock | undefined {
    return this.#bySlot.get(slot);
  }

  byRoot(root: Uint8Array): DevBeaconBlock | undefined {
    return this.#byRoot.get(key(root));
  }

  genesis(): DevBeaconBlock | undefined {
    return this.#bySlot.get(0n);
  }
}
