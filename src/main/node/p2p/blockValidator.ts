// Validation of a gossiped block, in op-node's order (rollup-node-p2p.md "Block validation"): size and snappy,
// the sequencer's signature, SSZ decoding, timestamp window, block hash, the rules of the topic's version, then
// at most 5 different blocks per height with duplicates ignored. Each outcome says why, for the scorer and logs.
// The stateless part (checkBlockMessage) is pure and runs on a pool thread for large blocks; the per-height
// memory stays with the BlockValidator on the coordinator.
import { TernError } from '../../common/errors.js';
import { snappyDecodedLength, snappyUncompress } from '../../common/snappy.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { isForkActive, type RollupConfig } from '../../primitives/rollup/config.js';
import type { ExecutionPayload } from '../engine/interface.js';
import { type BlockVersion, blockVersion } from '../signer/gossipPayload.js';
import { blockSigningHash, recoverSigner } from '../signer/signingHash.js';
import { payloadBlockHash } from './blockHash.js';
import { decodePayloadSsz } from './payloadSsz.js';
import { MAX_GOSSIP_SIZE, MIN_GOSSIP_SIZE } from './topics.js';

export type BlockValidation =
  | { result: 'accept'; payload: ExecutionPayload; parentBeaconBlockRoot: Uint8Array | undefined }
  | { result: 'ignore' | 'reject'; reason: string };

export interface BlockValidatorOptions {
  /** --p2p.gossip.timestamp.threshold in milliseconds: older payloads are rejected. */
  timestampThresholdMs: number;
  /** Runs the stateless checks of large messages elsewhere (the gossip validation pool); none: all inline. */
  offload?: OffloadedCheck | undefined;
  /** Compressed size from which messages go to `offload`. */
  offloadMinBytes?: number | undefined;
}

export interface BlockValidatorDeps {
  /** The current unsafe block signer (lower-case 0x address), or undefined while it is unknown. */
  signer(): string | undefined;
  /** Unix time in milliseconds (tests pass a fixed clock). */
  now?: () => number;
}

/** Blocks more than this far in the future are rejected (op-node: 5 s). */
const MAX_FUTURE_S = 5;
/** More different blocks than this at one height and the peer is spamming (op-node: 5). */
const MAX_BLOCKS_PER_HEIGHT = 5;
/** Heights remembered for the per-height rule (op-node's LRU holds 1000). */
const HEIGHTS_REMEMBERED = 1000;

const reject = (reason: string): BlockValidation => ({ result: 'reject', reason });

/** What the stateless checks need besides the message: given to a pool thread as plain data. */
export interface BlockCheckContext {
  cfg: RollupConfig;
  timestampThresholdMs: number;
  /** The current unsafe block signer (lower-case 0x address), or undefined while it is unknown. */
  signer: string | undefined;
  /** Unix time in milliseconds. */
  nowMs: number;
}

/**
 * The stateless checks of a gossiped block in op-node's order (size and snappy, signature, SSZ, timestamp window,
 * block hash, version rules): everything but the per-height memory. Pure, so a pool thread runs it for large
 * blocks (node/workers/gossipBlocks.ts). Never throws.
 */
export function checkBlockMessage(
  ctx: BlockCheckContext,
  topicVersion: BlockVersion,
  data: Uint8Array,
): BlockValidation {
  try {
    return check(ctx, topicVersion, data);
  } catch (err) {
    // Decoders throw TernErrors with a reason; anything else is a bug, still reported as a rejection.
    return reject(err instanceof TernError ? err.message : `validation failed: ${String(err)}`);
  }
}

function check(ctx: BlockCheckContext, topicVersion: BlockVersion, data: Uint8Array): BlockValidation {
  const declared = snappyDecodedLength(data);
  if (declared === undefined) return reject('invalid snappy length header');
  if (declared > MAX_GOSSIP_SIZE) return reject(`decoded size ${declared} above ${MAX_GOSSIP_SIZE}`);
  if (declared < MIN_GOSSIP_SIZE) return reject(`decoded size ${declared} below ${MIN_GOSSIP_SIZE}`);
  const decoded = snappyUncompress(data, MAX_GOSSIP_SIZE);
  const signature = decoded.subarray(0, 65);
  const signed = decoded.subarray(65);

  const expected = ctx.signer;
  if (expected === undefined || /^0x0{40}$/.test(expected)) {
    return { result: 'ignore', reason: 'no unsafe block signer known yet' };
  }
  let author: string;
  try {
    author = recoverSigner(blockSigningHash(ctx.cfg.l2ChainId, signed), signature);
  } catch (err) {
    return reject(`invalid signature: ${(err as Error).message}`);
  }
  if (author !== expected.toLowerCase()) return reject(`signed by ${author}, expected ${expected}`);

  let parentBeaconBlockRoot: Uint8Array | undefined;
  let ssz = signed;
  if (topicVersion >= 3) {
    if (signed.length < 32) return reject('too short for the parent beacon block root');
    parentBeaconBlockRoot = signed.slice(0, 32);
    ssz = signed.subarray(32);
  }
  const payload = decodePayloadSsz(ssz, topicVersion);

  const nowS = Math.floor(ctx.nowMs / 1000);
  const ts = Number(payload.timestamp);
  if (ts < nowS - Math.floor(ctx.timestampThresholdMs / 1000)) return reject(`payload timestamp ${ts} is too old`);
  if (ts > nowS + MAX_FUTURE_S) return reject(`payload timestamp ${ts} is too far in the future`);

  const actual = payloadBlockHash(payload, topicVersion, parentBeaconBlockRoot);
  if (Buffer.compare(actual, payload.blockHash) !== 0) {
    return reject(`block hash ${hex(payload.blockHash)} does not match the header's ${hex(actual)}`);
  }

  const why = versionRuleViolation(ctx.cfg, topicVersion, payload);
  if (why !== undefined) return reject(why);
  return { result: 'accept', payload, parentBeaconBlockRoot };
}

/** Runs checkBlockMessage elsewhere (a pool thread); resolves with its outcome. */
export type OffloadedCheck = (
  ctx: BlockCheckContext,
  topicVersion: BlockVersion,
  data: Uint8Array,
) => Promise<BlockValidation>;

export class BlockValidator {
  readonly #cfg: RollupConfig;
  readonly #opts: BlockValidatorOptions;
  readonly #deps: BlockValidatorDeps;
  /** Block hashes seen per height, oldest height first (Map keeps insertion order). */
  readonly #seen = new Map<bigint, string[]>();

  constructor(cfg: RollupConfig, opts: BlockValidatorOptions, deps: BlockValidatorDeps) {
    this.#cfg = cfg;
    this.#opts = opts;
    this.#deps = deps;
  }

  #context(): BlockCheckContext {
    return {
      cfg: this.#cfg,
      timestampThresholdMs: this.#opts.timestampThresholdMs,
      signer: this.#deps.signer(),
      nowMs: (this.#deps.now ?? Date.now)(),
    };
  }

  /** Validates the raw (snappy) `data` received on the blocks topic of `topicVersion`. Never throws. */
  validate(topicVersion: BlockVersion, data: Uint8Array): BlockValidation {
    return this.#admit(checkBlockMessage(this.#context(), topicVersion, data));
  }

  /**
   * Like validate, but messages of at least `offloadMinBytes` (compressed) run their stateless checks through
   * `offload` (the worker pool), off the calling thread; the per-height rule then runs here, so its memory stays
   * in one place. Smaller messages, or all without an offload, are validated at once. Never rejects: a failed
   * offload (pool closed, thread died) is reported as an ignore, as op-node ignores what it could not validate.
   */
  validateMessage(topicVersion: BlockVersion, data: Uint8Array): BlockValidation | Promise<BlockValidation> {
    const offload = this.#opts.offload;
    if (offload === undefined || data.length < (this.#opts.offloadMinBytes ?? 0))
      return this.validate(topicVersion, data);
    return offload(this.#context(), topicVersion, data).then(
      (outcome) => this.#admit(outcome),
      (err: unknown) => ({ result: 'ignore' as const, reason: `validation unavailable: ${(err as Error).message}` }),
    );
  }

  /** The per-height rule on an outcome of the stateless checks: at most 5 different blocks, duplicates ignored. */
  #admit(outcome: BlockValidation): BlockValidation {
    if (outcome.result !== 'accept') return outcome;
    const { payload } = outcome;
    const height = payload.blockNumber;
    const hash = hex(payload.blockHash);
    let seen = this.#seen.get(height);
    if (seen === undefined) {
      seen = [];
      this.#seen.set(height, seen);
      if (this.#seen.size > HEIGHTS_REMEMBERED) this.#seen.delete(this.#seen.keys().next().value as bigint);
    }
    if (seen.length > MAX_BLOCKS_PER_HEIGHT)
      return reject(`more than ${MAX_BLOCKS_PER_HEIGHT} blocks at height ${height}`);
    if (seen.includes(hash)) return { result: 'ignore', reason: `block ${hash} already seen` };
    seen.push(hash);
    return outcome;
  }
}

/** The per-version rules: right topic for the timestamp, empty withdrawals, zero blob gas, withdrawalsRoot. */
export function versionRuleViolation(
  cfg: RollupConfig,
  topicVersion: BlockVersion,
  p: ExecutionPayload,
): string | undefined {
  const expected = blockVersion(cfg, Number(p.timestamp));
  if (expected !== topicVersion) return `a v${expected} block sent on the v${topicVersion} topic`;
  if (topicVersion >= 2 && (p.withdrawals?.length ?? 0) !== 0) return 'withdrawals must be empty';
  if (topicVersion >= 3 && p.excessBlobGas !== 0n) return 'excessBlobGas must be 0';
  // From Jovian the blobGasUsed slot carries the block's DA footprint; before it, OP blocks have no blob gas.
  if (topicVersion >= 3 && p.blobGasUsed !== 0n && !isForkActive(cfg, 'jovian', Number(p.timestamp))) {
    return 'blobGasUsed must be 0 before Jovian';
  }
  if (topicVersion >= 4 && p.withdrawalsRoot === undefined) return 'an Isthmus block needs withdrawalsRoot';
  return undefined;
}
