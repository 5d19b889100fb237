// The Engine API handlers (execution-apis src/engine/, OP Stack exec-engine.md), callable in process with typed
// values; register.ts puts them on the auth RPC. Calls that touch the chain run one at a time (a queue), since
// newPayload, forkchoiceUpdated and block building all move or read the flat state.
//
// Unknown parents and heads answer SYNCING. With a sync service (deps.sync, exec/sync) this follows geth's beacon
// sync: a payload with an unknown parent is kept (not executed) and extends a sync already running; a
// forkchoiceUpdated to an unknown head starts (or retargets) the sync to it, with the kept payload when there is one,
// else by asking peers for the hash. Without one, the consensus client has to deliver every block (op-node does, in
// consolidation order).
// Side-chain payloads are executed on their parent's state (trie) and stored, so ACCEPTED is never answered.
import { createHash } from 'node:crypto';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { type Block, withdrawalsRoot } from '../../primitives/block/block.js';
import { type Header, headerHash } from '../../primitives/block/header.js';
import { equalBytes as equal, toHex as hex } from '../../primitives/bytes.js';
import { type ChainConfig, isOptimism, isTimeForkActive } from '../../primitives/chainConfig.js';
import { rlpEncode } from '../../primitives/rlp.js';
import { decodeTransaction } from '../../primitives/tx/decode.js';
import { payloadHeaderBase } from '../../protocol/engine/payloadHeader.js';
import type {
  ExecutionPayload,
  ForkchoiceState,
  ForkchoiceUpdatedResult,
  PayloadAttributes,
  PayloadBody,
  PayloadEnvelope,
  PayloadStatus,
  SuperchainSignal,
} from '../../protocol/engine/types.js';
import { invalidParams } from '../../protocol/engine/types.js';
import { RpcError, RpcErrorCode } from '../../protocol/jsonrpc/errors.js';
import type { ChainStore } from '../chain/chainStore.js';
import type { ImportTimings } from '../chain/importer.js';
import type { BlockExecutor, BuiltPayload } from '../executor/interface.js';

/** Methods this engine serves (engine_exchangeCapabilities). */
export const ENGINE_CAPABILITIES: readonly string[] = [
  'engine_exchangeCapabilities',
  'engine_forkchoiceUpdatedV1',
  'engine_forkchoiceUpdatedV2',
  'engine_forkchoiceUpdatedV3',
  'engine_getPayloadV2',
  'engine_getPayloadV3',
  'engine_getPayloadV4',
  'engine_newPayloadV2',
  'engine_newPayloadV3',
  'engine_newPayloadV4',
  'engine_getPayloadBodiesByHashV1',
  'engine_getPayloadBodiesByRangeV1',
  'engine_signalSuperchainV1',
];

/** Most bodies one getPayloadBodies call may ask for (execution-apis shanghai.md). */
export const MAX_BODIES_REQUEST = 1024;
/** Built payloads kept for getPayload (geth keeps 10). */
const MAX_PAYLOADS = 10;
const MAX_INVALID = 512;
/** Payloads with unknown parents kept for a later forkchoiceUpdated (whole blocks: fewer than geth's 96 headers). */
const MAX_REMOTE = 32;

/**
 * The OP-Stack protocol version this engine supports (superchain-upgrades.md format: type 0, build, major, minor,
 * patch, pre-release), answered by engine_signalSuperchainV1: v10.0.0, Jovian.
 */
export const SUPPORTED_PROTOCOL_VERSION = protocolVersion(10, 0, 0);

export function protocolVersion(major: number, minor: number, patch: number, prerelease = 0): Uint8Array {
  const v = new Uint8Array(32);
  const view = new DataView(v.buffer);
  view.setUint32(16, major);
  view.setUint32(20, minor);
  view.setUint32(24, patch);
  view.setUint32(28, prerelease);
  return v;
}

export type HaltLevel = 'major' | 'minor' | 'patch' | 'none';

export interface EngineApiOptions {
  /** --rollup.halt: halt when the required protocol version is newer at this level. */
  rollupHalt?: HaltLevel | undefined;
}

/** What the Engine API needs of the sync service (exec/sync/service.ts SyncHandle). */
export interface EngineSync {
  target(hash: Uint8Array, block?: Block): void;
  status(): { state: 'idle' | 'syncing' | 'failed' };
}

export interface EngineApiDeps {
  logger: Logger;
  /** Block sync from peers, started and retargeted by unknown heads; without it SYNCING waits for the consensus node. */
  sync?: EngineSync | undefined;
  /** Called when --rollup.halt asks the engine to stop (the node shuts down). */
  halt?: ((reason: string) => void) | undefined;
  /** Each payload executed and stored by newPayload, with its stage times (the chain/* timers). */
  imported?: ((timings: ImportTimings) => void) | undefined;
}

const isZero = (b: Uint8Array) => b.every((x) => x === 0);

const err = (code: number, message: string) => new RpcError(code, message);
const unsupportedFork = (message: string) => err(RpcErrorCode.unsupportedFork, `Unsupported fork: ${message}`);
const invalidAttributes = (message: string) =>
  err(RpcErrorCode.invalidPayloadAttributes, `Invalid payload attributes: ${message}`);
const invalidForkchoice = (message: string) =>
  err(RpcErrorCode.invalidForkchoiceState, `Invalid forkchoice state: ${message}`);

/** Which payload generation a timestamp belongs to: 1 Paris, 2 Shanghai, 3 Cancun (Ecotone), 4 Prague (Isthmus). */
export function payloadVersionAt(config: ChainConfig, timestamp: bigint): 1 | 2 | 3 | 4 {
  // OP chains move by their own forks, which imply the L1 ones; tern's chain config carries both.
  if (isOptimism(config) && isTimeForkActive(config, 'isthmusTime', timestamp)) return 4;
  if (isTimeForkActive(config, 'pragueTime', timestamp)) return 4;
  if (isTimeForkActive(config, 'cancunTime', timestamp)) return 3;
  if (isTimeForkActive(config, 'shanghaiTime', timestamp)) return 2;
  return 1;
}

/** EIP-7685 requests hash: sha256 over the sha256 of each non-empty request (type ‖ data). */
export function requestsHash(requests: readonly Uint8Array[]): Uint8Array {
  const outer = createHash('sha256');
  for (const r of requests) if (r.length > 1) outer.update(createHash('sha256').update(r).digest());
  return Uint8Array.from(outer.digest());
}

interface StoredPayload {
  built: BuiltPayload;
  version: 1 | 2 | 3;
  parentBeaconBlockRoot: Uint8Array | undefined;
}

export class EngineApi {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly payloads = new Map<string, StoredPayload>();
  /** Blocks found invalid → the latest valid ancestor (spec: INVALID answers carry it). */
  private readonly invalid = new Map<string, Uint8Array>();
  /** Payloads whose parent is unknown, kept for a forkchoiceUpdated that makes them the sync target (geth's remoteBlocks). */
  private readonly remote = new Map<string, Block>();
  /**
   * The last payload the executor held in memory (BlockExecutor.insert with `defer`): stored with state as far as
   * this API is concerned, since the executor writes it before anything else it does (as the head when the next
   * call is the forkchoiceUpdated to it, beside the chain otherwise), though the database may not hold it yet.
   */
  private held: { hash: Uint8Array; header: Header } | undefined;

  constructor(
    /** The coordinator's reads of the chain; every change to it goes through the executor. */
    private readonly store: ChainStore,
    private readonly executor: BlockExecutor,
    private readonly opts: EngineApiOptions,
    private readonly deps: EngineApiDeps,
  ) {}

  /** Runs `fn` holding the chain lock: Engine API calls and the sync's imports take turns. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  exchangeCapabilities(_consensus: readonly string[]): string[] {
    return [...ENGINE_CAPABILITIES];
  }

  // ---- newPayload ---------------------------------------------------------------------------------------------

  async newPayload(
    version: 2 | 3 | 4,
    payload: ExecutionPayload,
    versionedHashes?: Uint8Array[] | null,
    parentBeaconBlockRoot?: Uint8Array | null,
    executionRequests?: Uint8Array[] | null,
  ): Promise<PayloadStatus> {
    const config = this.store.config();
    const fork = payloadVersionAt(config, payload.timestamp);
    if (version === 2) {
      if (fork >= 3) throw unsupportedFork('engine_newPayloadV2 is for payloads before Cancun, use V3 or V4');
      if ((fork === 2) !== (payload.withdrawals !== undefined))
        throw invalidParams(fork === 2 ? 'missing withdrawals' : 'withdrawals before Shanghai');
      if (payload.blobGasUsed !== undefined || payload.excessBlobGas !== undefined)
        throw invalidParams('blobGasUsed and excessBlobGas are not allowed before Cancun');
    } else {
      if (payload.withdrawals === undefined) throw invalidParams('missing withdrawals');
      if (payload.blobGasUsed === undefined) throw invalidParams('missing blobGasUsed');
      if (payload.excessBlobGas === undefined) throw invalidParams('missing excessBlobGas');
      if (versionedHashes == null) throw invalidParams('missing expectedBlobVersionedHashes');
      if (parentBeaconBlockRoot == null) throw invalidParams('missing parentBeaconBlockRoot');
      if (version === 4 && executionRequests == null) throw invalidParams('missing executionRequests');
      if (fork !== version) throw unsupportedFork(`engine_newPayloadV${version} for a V${fork} payload`);
    }
    let reqHash: Uint8Array | undefined;
    if (version === 4 && executionRequests) {
      if (isOptimism(config) && executionRequests.length > 0)
        throw invalidParams('executionRequests must be empty on OP chains');
      for (let i = 0; i < executionRequests.length; i++) {
        const r = executionRequests[i]!;
        if (r.length <= 1) throw invalidParams(`empty request at index ${i}`);
        if (i > 0 && r[0]! <= executionRequests[i - 1]![0]!)
          throw invalidParams('requests must be in strictly increasing order of type');
      }
      reqHash = requestsHash(executionRequests);
    }
    return this.exclusive(() =>
      this.applyPayload(payload, versionedHashes ?? undefined, parentBeaconBlockRoot ?? undefined, reqHash),
    );
  }

  private blockFromPayload(
    p: ExecutionPayload,
    beaconRoot: Uint8Array | undefined,
    reqHash: Uint8Array | undefined,
  ): Block {
    const config = this.store.config();
    const opWithdrawalsRoot = isOptimism(config) && isTimeForkActive(config, 'isthmusTime', p.timestamp);
    const header: Header = {
      ...payloadHeaderBase(p),
      withdrawalsRoot: p.withdrawals
        ? opWithdrawalsRoot
          ? p.withdrawalsRoot
          : withdrawalsRoot(p.withdrawals)
        : undefined,
      blobGasUsed: p.blobGasUsed,
      excessBlobGas: p.excessBlobGas,
      parentBeaconBlockRoot: beaconRoot,
      requestsHash: reqHash,
    };
    return { header, transactions: p.transactions, uncles: [], withdrawals: p.withdrawals };
  }

  private async applyPayload(
    payload: ExecutionPayload,
    versionedHashes: Uint8Array[] | undefined,
    beaconRoot: Uint8Array | undefined,
    reqHash: Uint8Array | undefined,
  ): Promise<PayloadStatus> {
    const config = this.store.config();
    if (payload.extraData.length > 32 && !isOptimism(config))
      return { status: 'INVALID', latestValidHash: null, validationError: 'extraData longer than 32 bytes' };
    if (isOptimism(config) && isTimeForkActive(config, 'isthmusTime', payload.timestamp) && !payload.withdrawalsRoot)
      return { status: 'INVALID', latestValidHash: null, validationError: 'missing withdrawalsRoot (Isthmus)' };
    const block = this.blockFromPayload(payload, beaconRoot, reqHash);
    const hash = headerHash(block.header);
    if (!equal(hash, payload.blockHash)) {
      return {
        status: 'INVALID',
        latestValidHash: null,
        validationError: `blockhash mismatch, want ${hex(hash)}, got ${hex(payload.blockHash)}`,
      };
    }
    if (versionedHashes) {
      const actual: string[] = [];
      try {
        for (const raw of payload.transactions) {
          if (raw[0] === 3) actual.push(...(decodeTransaction(raw).blobVersionedHashes ?? []));
        }
      } catch (e) {
        return { status: 'INVALID', latestValidHash: null, validationError: (e as Error).message };
      }
      const expected = versionedHashes.map(hex);
      if (actual.length !== expected.length || actual.some((h, i) => h.toLowerCase() !== expected[i]))
        return { status: 'INVALID', latestValidHash: null, validationError: 'invalid blob versioned hashes' };
    }
    if (this.hasState(hash)) return { status: 'VALID', latestValidHash: hash, validationError: null };
    const badAncestor = this.invalid.get(hex(hash)) ?? this.invalid.get(hex(payload.parentHash));
    if (badAncestor !== undefined) {
      this.markInvalid(hash, badAncestor);
      return {
        status: 'INVALID',
        latestValidHash: badAncestor,
        validationError: 'links to a previously rejected block',
      };
    }
    if (!this.hasState(payload.parentHash)) {
      this.deps.logger.debug('newPayload with an unknown parent', {
        number: payload.blockNumber,
        parent: hex(payload.parentHash),
      });
      if (this.remote.size >= MAX_REMOTE) this.remote.delete(this.remote.keys().next().value as string);
      this.remote.set(hex(hash), block);
      // A sync under way is extended to this block; starting one waits for a forkchoiceUpdated (as geth).
      if (this.deps.sync?.status().state === 'syncing') this.deps.sync.target(hash, block);
      return { status: 'SYNCING', latestValidHash: null, validationError: null };
    }
    try {
      // Our own payload is stored as built; anything else is executed.
      if (!(await this.executor.insertBuilt(hash))) {
        // op-node's forkchoiceUpdated to this block comes next: the executor writes it then, as the head.
        const r = await this.executor.insert(block, { defer: true });
        if (r.held === true) this.held = { hash, header: block.header };
        if (r.status === 'imported') this.deps.imported?.(r.timings);
      }
    } catch (e) {
      if (e instanceof TernError && (e.code === 'BLOCK_INVALID' || e.code.startsWith('HEADER_'))) {
        this.markInvalid(hash, payload.parentHash);
        this.deps.logger.warn('Invalid payload', { number: payload.blockNumber, hash: hex(hash), error: e.message });
        return { status: 'INVALID', latestValidHash: payload.parentHash, validationError: e.message };
      }
      throw e;
    }
    return { status: 'VALID', latestValidHash: hash, validationError: null };
  }

  /** Stored with state, or held by the executor. */
  private hasState(hash: Uint8Array): boolean {
    return this.store.hasState(hash) || (this.held !== undefined && equal(this.held.hash, hash));
  }

  private headerByHash(hash: Uint8Array): Header | undefined {
    return (
      this.store.headerByHash(hash) ??
      (this.held !== undefined && equal(this.held.hash, hash) ? this.held.header : undefined)
    );
  }

  private markInvalid(hash: Uint8Array, latestValid: Uint8Array): void {
    if (this.invalid.size >= MAX_INVALID) this.invalid.delete(this.invalid.keys().next().value as string);
    this.invalid.set(hex(hash), latestValid);
  }

  // ---- forkchoiceUpdated --------------------------------------------------------------------------------------

  async forkchoiceUpdated(
    version: 1 | 2 | 3,
    state: ForkchoiceState,
    attrs?: PayloadAttributes | null,
  ): Promise<ForkchoiceUpdatedResult> {
    if (attrs) this.checkAttributesShape(version, attrs);
    return this.exclusive(() => this.applyForkchoice(version, state, attrs ?? undefined));
  }

  /** Version rules of the attributes (geth's order: shape errors -32602, wrong fork -38005). */
  private checkAttributesShape(version: 1 | 2 | 3, a: PayloadAttributes): void {
    const config = this.store.config();
    const fork = payloadVersionAt(config, a.timestamp);
    if (version === 1) {
      if (a.withdrawals !== undefined || a.parentBeaconBlockRoot !== undefined)
        throw invalidParams('withdrawals and beacon root not supported in V1');
      if (fork >= 2) throw invalidParams('forkChoiceUpdateV1 called post-shanghai');
    } else if (version === 2) {
      if (a.parentBeaconBlockRoot !== undefined) throw invalidAttributes('unexpected beacon root');
      if (fork === 1 && a.withdrawals !== undefined) throw invalidParams('withdrawals before shanghai');
      if (fork === 2 && a.withdrawals === undefined) throw invalidParams('missing withdrawals');
      if (fork >= 3) throw unsupportedFork('forkchoiceUpdatedV2 with attributes after Cancun, use V3');
    } else {
      if (a.withdrawals === undefined) throw invalidParams('missing withdrawals');
      if (a.parentBeaconBlockRoot === undefined) throw invalidParams('missing beacon root');
      if (fork < 3) throw unsupportedFork('forkchoiceUpdatedV3 with attributes before Cancun');
    }
  }

  /** OP attribute rules (exec-engine.md): gasLimit always, eip1559Params from Holocene, minBaseFee from Jovian. */
  private checkOpAttributes(a: PayloadAttributes): void {
    const config = this.store.config();
    if (!isOptimism(config)) return;
    if (a.gasLimit === undefined) throw invalidAttributes('gasLimit parameter is required');
    const holocene = isTimeForkActive(config, 'holoceneTime', a.timestamp);
    if (!holocene && a.eip1559Params !== undefined)
      throw invalidAttributes('eip1559Params not allowed before Holocene');
    if (holocene) {
      const p = a.eip1559Params;
      if (p === undefined) throw invalidAttributes('eip1559Params is required after Holocene');
      if (p.length !== 8) throw invalidAttributes('eip1559Params must be 8 bytes');
      const view = new DataView(p.buffer, p.byteOffset, 8);
      if (view.getUint32(0) === 0 && view.getUint32(4) !== 0)
        throw invalidAttributes('eip1559Params: denominator is zero with a non-zero elasticity');
    }
    const jovian = isTimeForkActive(config, 'jovianTime', a.timestamp);
    if (!jovian && a.minBaseFee !== undefined) throw invalidAttributes('minBaseFee not allowed before Jovian');
    if (jovian && a.minBaseFee === undefined) throw invalidAttributes('minBaseFee is required after Jovian');
  }

  private async applyForkchoice(
    version: 1 | 2 | 3,
    state: ForkchoiceState,
    attrs: PayloadAttributes | undefined,
  ): Promise<ForkchoiceUpdatedResult> {
    const config = this.store.config();
    const none = { payloadId: null };
    if (isZero(state.headBlockHash))
      return { payloadStatus: { status: 'INVALID', latestValidHash: null, validationError: null }, ...none };
    const bad = this.invalid.get(hex(state.headBlockHash));
    if (bad !== undefined)
      return {
        payloadStatus: {
          status: 'INVALID',
          latestValidHash: bad,
          validationError: 'links to a previously rejected block',
        },
        ...none,
      };
    const head = this.headerByHash(state.headBlockHash);
    if (head === undefined || !this.hasState(state.headBlockHash)) {
      this.deps.logger.debug('Forkchoice update to an unknown block', { head: hex(state.headBlockHash) });
      if (this.deps.sync !== undefined) {
        const block = this.remote.get(hex(state.headBlockHash));
        this.deps.logger.info('Forkchoice requested sync to new head', {
          number: block?.header.number ?? head?.number,
          hash: hex(state.headBlockHash),
        });
        this.deps.sync.target(state.headBlockHash, block);
      }
      return { payloadStatus: { status: 'SYNCING', latestValidHash: null, validationError: null }, ...none };
    }
    const current = this.store.head();
    const rewind = this.store.isCanonical(state.headBlockHash) && !equal(current.hash, state.headBlockHash);
    // L1 ignores updates to an older canonical block (a resyncing beacon node); OP chains reorg back to it.
    if (!(rewind && !isOptimism(config))) {
      try {
        const change = await this.executor.setHead(state.headBlockHash);
        if (change.unwound > 0)
          this.deps.logger.info('Chain reorg', { unwound: change.unwound, applied: change.applied, head: head.number });
      } catch (e) {
        if (e instanceof TernError && (e.code === 'REORG_TOO_DEEP' || e.code === 'BLOCK_NO_STATE'))
          return { payloadStatus: { status: 'SYNCING', latestValidHash: null, validationError: e.message }, ...none };
        throw e;
      }
    }
    const marker = (hash: Uint8Array, what: string): Uint8Array | undefined => {
      if (isZero(hash)) return undefined;
      if (this.store.headerByHash(hash) === undefined) throw invalidForkchoice(`${what} block not available`);
      if (!this.store.isCanonical(hash)) throw invalidForkchoice(`${what} block not in canonical chain`);
      return hash;
    };
    const finalized = marker(state.finalizedBlockHash, 'final');
    const safe = marker(state.safeBlockHash, 'safe');
    await this.executor.setForkchoiceMarkers(safe, finalized);
    if (this.deps.logger.isEnabled('debug'))
      this.deps.logger.debug('Forkchoice updated', {
        head: head.number,
        hash: hex(state.headBlockHash),
        safe: safe === undefined ? undefined : this.store.headerByHash(safe)?.number,
        finalized: finalized === undefined ? undefined : this.store.headerByHash(finalized)?.number,
        attributes: attrs !== undefined && attrs !== null,
      });
    const valid: PayloadStatus = { status: 'VALID', latestValidHash: state.headBlockHash, validationError: null };
    if (!attrs) return { payloadStatus: valid, ...none };

    this.checkOpAttributes(attrs);
    if (attrs.timestamp <= head.timestamp)
      throw invalidAttributes(`invalid timestamp ${attrs.timestamp}, parent has ${head.timestamp}`);
    const id = payloadId(version, state.headBlockHash, attrs);
    if (!this.payloads.has(hex(id))) {
      let built: BuiltPayload;
      try {
        built = await this.executor.build(state.headBlockHash, {
          timestamp: attrs.timestamp,
          prevRandao: attrs.prevRandao,
          feeRecipient: attrs.suggestedFeeRecipient,
          withdrawals: attrs.withdrawals,
          parentBeaconBlockRoot: attrs.parentBeaconBlockRoot,
          transactions: attrs.transactions,
          noTxPool: attrs.noTxPool,
          gasLimit: attrs.gasLimit,
          eip1559Params: attrs.eip1559Params,
          minBaseFee: attrs.minBaseFee,
        });
      } catch (e) {
        if (e instanceof TernError && e.code.startsWith('BUILD_')) throw invalidAttributes(e.message);
        throw e;
      }
      if (this.payloads.size >= MAX_PAYLOADS) this.payloads.delete(this.payloads.keys().next().value as string);
      this.payloads.set(hex(id), { built, version, parentBeaconBlockRoot: attrs.parentBeaconBlockRoot });
    }
    return { payloadStatus: valid, payloadId: id };
  }

  // ---- getPayload ---------------------------------------------------------------------------------------------

  getPayload(version: 2 | 3 | 4, id: Uint8Array): PayloadEnvelope {
    const stored = this.payloads.get(hex(id));
    if (stored === undefined) throw err(RpcErrorCode.unknownPayload, 'Unknown payload');
    const config = this.store.config();
    const block = stored.built.block;
    const fork = payloadVersionAt(config, block.header.timestamp);
    if (version === 2 && fork >= 3) throw unsupportedFork('engine_getPayloadV2 for a payload after Cancun');
    if (version >= 3 && fork !== version) throw unsupportedFork(`engine_getPayloadV${version} for a V${fork} payload`);
    const env: PayloadEnvelope = {
      executionPayload: payloadFromBlock(config, block, stored.built.hash),
      blockValue: stored.built.blockValue,
    };
    if (version >= 3) {
      env.blobsBundle = { commitments: [], proofs: [], blobs: [] };
      env.shouldOverrideBuilder = false;
      if (isOptimism(config)) env.parentBeaconBlockRoot = block.header.parentBeaconBlockRoot;
    }
    if (version === 4) env.executionRequests = [];
    return env;
  }

  // ---- bodies -------------------------------------------------------------------------------------------------

  getPayloadBodiesByHash(hashes: readonly Uint8Array[]): Array<PayloadBody | null> {
    if (hashes.length > MAX_BODIES_REQUEST)
      throw err(RpcErrorCode.tooLargeRequest, `Too large request: ${hashes.length} > ${MAX_BODIES_REQUEST}`);
    return hashes.map((h) => bodyOf(this.store.blockByHash(h)));
  }

  getPayloadBodiesByRange(start: bigint, count: bigint): Array<PayloadBody | null> {
    if (start < 1n || count < 1n) throw invalidParams(`invalid start (${start}) or count (${count})`);
    if (count > BigInt(MAX_BODIES_REQUEST))
      throw err(RpcErrorCode.tooLargeRequest, `Too large request: ${count} > ${MAX_BODIES_REQUEST}`);
    const head = this.store.head().number;
    const out: Array<PayloadBody | null> = [];
    for (let n = start; n < start + count && n <= head; n++) out.push(bodyOf(this.store.blockByNumber(n)));
    return out;
  }

  // ---- superchain ---------------------------------------------------------------------------------------------

  signalSuperchain(signal: SuperchainSignal): Uint8Array {
    const ours = SUPPORTED_PROTOCOL_VERSION;
    if (compareVersions(signal.recommended, ours) > 0)
      this.deps.logger.warn('The recommended OP-Stack protocol version is newer than this node supports', {
        recommended: formatVersion(signal.recommended),
        supported: formatVersion(ours),
      });
    const level = this.opts.rollupHalt;
    if (level && level !== 'none' && needsHalt(signal.required, ours, level)) {
      const reason = `required OP-Stack protocol version ${formatVersion(signal.required)} is newer than the supported ${formatVersion(ours)} at the ${level} level (--rollup.halt=${level})`;
      this.deps.logger.error('Halting: incompatible protocol version', { reason });
      this.deps.halt?.(reason);
    } else if (compareVersions(signal.required, ours) > 0) {
      this.deps.logger.warn('The required OP-Stack protocol version is newer than this node supports', {
        required: formatVersion(signal.required),
        supported: formatVersion(ours),
      });
    }
    return ours;
  }
}

function bodyOf(block: Block | undefined): PayloadBody | null {
  if (block === undefined) return null;
  return { transactions: block.transactions, withdrawals: block.withdrawals ?? null };
}

/** The Engine API payload of a block. */
export function payloadFromBlock(config: ChainConfig, block: Block, hash: Uint8Array): ExecutionPayload {
  const h = block.header;
  const p: ExecutionPayload = {
    parentHash: h.parentHash,
    feeRecipient: h.coinbase,
    stateRoot: h.stateRoot,
    receiptsRoot: h.receiptsRoot,
    logsBloom: h.logsBloom,
    prevRandao: h.mixHash,
    blockNumber: h.number,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    baseFeePerGas: h.baseFeePerGas ?? 0n,
    blockHash: hash,
    transactions: block.transactions,
  };
  if (block.withdrawals) p.withdrawals = block.withdrawals;
  if (h.blobGasUsed !== undefined) p.blobGasUsed = h.blobGasUsed;
  if (h.excessBlobGas !== undefined) p.excessBlobGas = h.excessBlobGas;
  if (isOptimism(config) && isTimeForkActive(config, 'isthmusTime', h.timestamp)) p.withdrawalsRoot = h.withdrawalsRoot;
  return p;
}

/** A build's id: the payload version, then the first 7 bytes of sha256 over the parent and every attribute. */
export function payloadId(version: number, parent: Uint8Array, a: PayloadAttributes): Uint8Array {
  const h = createHash('sha256');
  const u64 = (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(n);
    return b;
  };
  h.update(parent).update(u64(a.timestamp)).update(a.prevRandao).update(a.suggestedFeeRecipient);
  if (a.withdrawals)
    h.update(rlpEncode(a.withdrawals.map((w) => [u64(w.index), u64(w.validatorIndex), w.address, u64(w.amount)])));
  if (a.parentBeaconBlockRoot) h.update(a.parentBeaconBlockRoot);
  if (a.noTxPool || (a.transactions?.length ?? 0) > 0) {
    h.update(Uint8Array.of(a.noTxPool ? 1 : 0)).update(u64(BigInt(a.transactions?.length ?? 0)));
    for (const tx of a.transactions ?? []) h.update(createHash('sha256').update(tx).digest());
  }
  if (a.gasLimit !== undefined) h.update(u64(a.gasLimit));
  if (a.eip1559Params) h.update(a.eip1559Params);
  if (a.minBaseFee !== undefined) h.update(u64(a.minBaseFee));
  const id = new Uint8Array(8);
  id.set(h.digest().subarray(0, 7), 1);
  id[0] = version;
  return id;
}

function versionParts(v: Uint8Array): [number, number, number, number] {
  const view = new DataView(v.buffer, v.byteOffset, 32);
  return [view.getUint32(16), view.getUint32(20), view.getUint32(24), view.getUint32(28)];
}

function formatVersion(v: Uint8Array): string {
  const [major, minor, patch, pre] = versionParts(v);
  return `v${major}.${minor}.${patch}${pre ? `-${pre}` : ''}`;
}

/** Orders protocol versions (a pre-release sorts before its release). */
export function compareVersions(a: Uint8Array, b: Uint8Array): number {
  const x = versionParts(a);
  const y = versionParts(b);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  const px = x[3] === 0 ? Number.MAX_SAFE_INTEGER : x[3]!;
  const py = y[3] === 0 ? Number.MAX_SAFE_INTEGER : y[3]!;
  return px - py;
}

/** op-geth's rule: halt when the required version is ahead of ours in a part at or above the chosen level. */
export function needsHalt(required: Uint8Array, ours: Uint8Array, level: Exclude<HaltLevel, 'none'>): boolean {
  if (isZero(required)) return false;
  const r = versionParts(required);
  const o = versionParts(ours);
  const depth = level === 'major' ? 1 : level === 'minor' ? 2 : 3;
  for (let i = 0; i < depth; i++) {
    if (r[i]! > o[i]!) return true;
    if (r[i]! < o[i]!) return false;
  }
  return false;
}
