// The Engine in one process with tern-exec: the Engine API calls go straight to its EngineApi handlers with typed
// values (no JSON, no JWT), and the L2 reads go to its ChainStore. The behaviour the driver sees is the HTTP
// engine's (http.ts): the same Engine API version per fork, the same error codes and severities (the handlers'
// RpcErrors pass through the same mapping), a label the engine has not marked yet is ENGINE_NOT_FOUND, and the
// output root's message-passer storage root comes from the header after Isthmus (unless
// --fetch-withdrawal-root-from-state) and from the block's state otherwise. The state is read directly: the
// engine is this process, so there is no proof to check.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { ChainStore } from '../../exec/chain/chainStore.js';
import { ChainView } from '../../exec/chain/chainView.js';
import { stateAt } from '../../exec/chain/stateAt.js';
import { type EngineApi, payloadFromBlock } from '../../exec/engine/api.js';
import type { Block } from '../../primitives/block/block.js';
import type { Header } from '../../primitives/block/header.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { L2BlockRef } from '../../primitives/rollup/blockRef.js';
import { isIsthmus, type RollupConfig } from '../../primitives/rollup/config.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import { forkchoiceUpdatedVersion, getPayloadVersion, newPayloadVersion } from '../../protocol/engine/versions.js';
import type { SystemConfig } from '../derive/types.js';
import { type EngineClientMetrics, rpcFailure } from './http.js';
import {
  type Engine,
  type ExecutionPayload,
  engineNotFound,
  type ForkchoiceState,
  type ForkchoiceUpdatedResult,
  type L2Block,
  type L2Label,
  type L2Payload,
  type OutputV0,
  type PayloadAttributes,
  type PayloadEnvelope,
  type PayloadStatus,
} from './interface.js';
import { blockRefFromBlock, type L2HeaderFields, systemConfigFromBlock } from './l2Block.js';
import { L2_TO_L1_MESSAGE_PASSER } from './output.js';

/** What the in-process engine calls: tern-exec's Engine API handlers and the chain they drive. */
export interface InProcessExec {
  api: EngineApi;
  store: ChainStore;
}

export interface InProcessEngineOptions {
  /** --fetch-withdrawal-root-from-state: read the message passer's storage root from state even after Isthmus. */
  fetchWithdrawalRootFromState: boolean;
}

export const inProcessEngineDefaults = { fetchWithdrawalRootFromState: false } satisfies InProcessEngineOptions;

export interface InProcessEngineDeps {
  logger: Logger;
  metrics?: EngineClientMetrics | undefined;
}

const ZERO_HASH = new Uint8Array(32);
const MESSAGE_PASSER = Uint8Array.from(Buffer.from(L2_TO_L1_MESSAGE_PASSER.slice(2), 'hex'));

interface StoredBlock {
  hash: Uint8Array;
  block: Block;
  fields: L2HeaderFields;
}

function fieldsOf(header: Header, hash: Uint8Array): L2HeaderFields {
  return {
    hash: hex(hash),
    number: Number(header.number),
    parentHash: hex(header.parentHash),
    timestamp: Number(header.timestamp),
    gasLimit: header.gasLimit,
    extraData: header.extraData,
  };
}

/** A payload without the Isthmus-only withdrawalsRoot (V2/V3 payloads do not carry it); the input is not changed. */
function withoutWithdrawalsRoot(p: ExecutionPayload): ExecutionPayload {
  if (p.withdrawalsRoot === undefined) return p;
  const { withdrawalsRoot: _dropped, ...rest } = p;
  return rest;
}

export class InProcessEngine implements Engine {
  readonly #cfg: RollupConfig;
  readonly #exec: InProcessExec;
  readonly #opts: InProcessEngineOptions;
  readonly #metrics: EngineClientMetrics | undefined;
  readonly #log: Logger;
  #closed = false;

  constructor(
    cfg: RollupConfig,
    exec: InProcessExec,
    opts: Partial<InProcessEngineOptions>,
    deps: InProcessEngineDeps,
  ) {
    this.#cfg = cfg;
    this.#exec = exec;
    this.#opts = { ...inProcessEngineDefaults, ...opts };
    this.#metrics = deps.metrics;
    this.#log = deps.logger.child('engine-inprocess');
  }

  /** Runs one handler call with the HTTP engine's metrics and error mapping. */
  async #call<T>(method: string, fn: () => T | Promise<T>): Promise<T> {
    if (this.#closed) {
      throw new TernError('ENGINE_RPC', `engine ${method} failed: the in-process engine is closed`, {
        severity: 'temporary',
      });
    }
    const done = this.#metrics?.recordRpcClientRequest(method);
    try {
      const result = await fn();
      done?.();
      return result;
    } catch (err) {
      done?.(err);
      throw rpcFailure(method, err);
    }
  }

  async newPayload(payload: ExecutionPayload, parentBeaconBlockRoot?: Uint8Array): Promise<PayloadStatus> {
    const version = newPayloadVersion(this.#cfg, Number(payload.timestamp));
    const api = this.#exec.api;
    const method = `engine_newPayloadV${version}`;
    if (version === 4) {
      return this.#call(method, () => api.newPayload(4, payload, [], parentBeaconBlockRoot ?? ZERO_HASH, []));
    }
    if (version === 3) {
      return this.#call(method, () =>
        api.newPayload(3, withoutWithdrawalsRoot(payload), [], parentBeaconBlockRoot ?? ZERO_HASH),
      );
    }
    return this.#call(method, () => api.newPayload(2, withoutWithdrawalsRoot(payload)));
  }

  async forkchoiceUpdated(state: ForkchoiceState, attributes?: PayloadAttributes): Promise<ForkchoiceUpdatedResult> {
    const version = forkchoiceUpdatedVersion(this.#cfg, attributes && Number(attributes.timestamp));
    return this.#call(`engine_forkchoiceUpdatedV${version}`, () =>
      this.#exec.api.forkchoiceUpdated(version, state, attributes ?? null),
    );
  }

  async getPayload(payloadId: Uint8Array, timestamp: number): Promise<PayloadEnvelope> {
    const version = getPayloadVersion(this.#cfg, timestamp);
    const full = await this.#call(`engine_getPayloadV${version}`, () => this.#exec.api.getPayload(version, payloadId));
    // The fields the HTTP engine keeps: an OP payload has no blobs and no execution requests.
    const env: PayloadEnvelope = { executionPayload: full.executionPayload, blockValue: full.blockValue };
    if (full.parentBeaconBlockRoot !== undefined) env.parentBeaconBlockRoot = full.parentBeaconBlockRoot;
    if (full.shouldOverrideBuilder !== undefined) env.shouldOverrideBuilder = full.shouldOverrideBuilder;
    return env;
  }

  // ---- L2 reads -------------------------------------------------------------------------------------------------

  #byHash(hash: Uint8Array, what: string): StoredBlock {
    const block = this.#exec.store.blockByHash(hash);
    if (block === undefined) throw engineNotFound(what);
    return { hash, block, fields: fieldsOf(block.header, hash) };
  }

  #byNumber(num: number, what: string): StoredBlock {
    const store = this.#exec.store;
    if (!Number.isSafeInteger(num) || num < 0 || BigInt(num) > store.head().number) throw engineNotFound(what);
    const hash = store.canonicalHash(BigInt(num));
    if (hash === undefined) throw engineNotFound(what);
    return this.#byHash(hash, what);
  }

  #byLabel(label: L2Label): StoredBlock {
    const store = this.#exec.store;
    const what = `${label} block`;
    if (label === 'latest') return this.#byHash(store.head().hash, what);
    const hash = label === 'safe' ? store.safeHash() : store.finalizedHash();
    // An unmarked safe or finalized block: not found, as geth's "safe block not found" (syncStart then uses genesis).
    if (hash === undefined) throw engineNotFound(what);
    return this.#byHash(hash, what);
  }

  async #read<T>(what: string, fn: () => T): Promise<T> {
    if (this.#closed) throw engineNotFound(`${what}: the in-process engine is closed`);
    try {
      return fn();
    } catch (err) {
      if (err instanceof TernError && err.severity !== undefined) throw err;
      throw new TernError('ENGINE_RPC', `engine read of ${what} failed: ${(err as Error).message ?? String(err)}`, {
        severity: 'temporary',
        cause: err,
      });
    }
  }

  #ref(b: StoredBlock): L2BlockRef {
    return blockRefFromBlock(this.#cfg, b.fields, b.block.transactions[0]);
  }

  #payload(b: StoredBlock): L2Payload {
    return {
      ref: this.#ref(b),
      payload: payloadFromBlock(this.#exec.store.config(), b.block, b.hash),
      parentBeaconBlockRoot: b.block.header.parentBeaconBlockRoot,
    };
  }

  l2BlockRefByLabel(label: L2Label): Promise<L2BlockRef> {
    return this.#read(`${label} block`, () => this.#ref(this.#byLabel(label)));
  }

  l2BlockRefByNumber(num: number): Promise<L2BlockRef> {
    return this.#read(`block ${num}`, () => this.#ref(this.#byNumber(num, `block ${num}`)));
  }

  l2BlockRefByHash(hash: string): Promise<L2BlockRef> {
    return this.#read(`block ${hash}`, () => this.#ref(this.#byHash(hashBytes(hash), `block ${hash}`)));
  }

  l2BlockByNumber(num: number): Promise<L2Block> {
    return this.#read(`block ${num}`, () => {
      const b = this.#byNumber(num, `block ${num}`);
      return { ref: this.#ref(b), transactions: b.block.transactions };
    });
  }

  payloadByNumber(num: number): Promise<L2Payload> {
    return this.#read(`block ${num}`, () => this.#payload(this.#byNumber(num, `block ${num}`)));
  }

  payloadByHash(hash: string): Promise<L2Payload> {
    return this.#read(`block ${hash}`, () => this.#payload(this.#byHash(hashBytes(hash), `block ${hash}`)));
  }

  systemConfigByL2Hash(hash: string): Promise<SystemConfig> {
    return this.#read(`block ${hash}`, () => {
      const b = this.#byHash(hashBytes(hash), `block ${hash}`);
      return systemConfigFromBlock(this.#cfg, b.fields, b.block.transactions[0]);
    });
  }

  outputV0AtBlock(block: number | L2Label): Promise<OutputV0> {
    const what = typeof block === 'number' ? `block ${block}` : `${block} block`;
    return this.#read(what, () => {
      const b = typeof block === 'number' ? this.#byNumber(block, what) : this.#byLabel(block);
      const ref = this.#ref(b);
      const header = b.block.header;
      let storageRoot: Uint8Array;
      if (isIsthmus(this.#cfg, ref.timestamp) && !this.#opts.fetchWithdrawalRootFromState) {
        if (header.withdrawalsRoot === undefined) {
          throw new TernError(
            'ENGINE_RPC',
            `engine answered a malformed block: Isthmus block ${ref.number} has no withdrawalsRoot`,
            {
              severity: 'temporary',
            },
          );
        }
        storageRoot = header.withdrawalsRoot;
      } else {
        storageRoot = this.#messagePasserRoot(b);
      }
      return { ref, stateRoot: header.stateRoot, messagePasserStorageRoot: storageRoot, blockHash: b.hash };
    });
  }

  /** The L2ToL1MessagePasser's storage root in the state after the block (flat state at the head, trie before). */
  #messagePasserRoot(b: StoredBlock): Uint8Array {
    const store = this.#exec.store;
    const view = ChainView.open(store.db, store.config());
    try {
      const account = stateAt(view, { header: b.block.header, hash: b.hash }).getAccount(MESSAGE_PASSER);
      if (account === undefined) throw engineNotFound(`message passer account at block ${b.fields.number}`);
      return account.storageRoot ?? EMPTY_TRIE_ROOT;
    } finally {
      view.release();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#log.debug('In-process engine closed');
  }
}

function hashBytes(hash: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) {
    throw new TernError('ENGINE_NOT_FOUND', `L2 block ${hash} not found in the execution engine: not a block hash`, {
      severity: 'temporary',
    });
  }
  return Uint8Array.from(Buffer.from(hash.slice(2), 'hex'));
}
