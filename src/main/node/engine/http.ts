// The Engine over JSON-RPC with a JWT (--l2, --l2.jwt-secret, --l2.engine-rpc-timeout, --l2.enginekind): the
// Engine API methods by fork version, and the L2 reads through the eth namespace the authenticated endpoint also
// serves (blocks with full transactions, eth_getProof). The engine is trusted, as op-node trusts it: answers are
// decoded, not re-hashed.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { RpcClient } from '../../common/rpc/client.js';
import type { L2BlockRef } from '../../primitives/rollup/blockRef.js';
import { isIsthmus, type RollupConfig } from '../../primitives/rollup/config.js';
import { encodeDepositTx } from '../../primitives/tx/deposit/deposit.js';
import {
  type ExecutionPayload,
  executionPayloadFromJson,
  executionPayloadToJson,
  type ForkchoiceState,
  type ForkchoiceUpdatedResult,
  hexOf,
  type PayloadAttributes,
  type PayloadEnvelope,
  type PayloadStatus,
} from '../../protocol/engine/types.js';
import { forkchoiceUpdatedVersion, getPayloadVersion, newPayloadVersion } from '../../protocol/engine/versions.js';
import { RpcError, RpcErrorCode } from '../../protocol/jsonrpc/errors.js';
import type { SystemConfig } from '../derive/types.js';
import {
  asJson,
  dataField,
  hashField,
  headerFromJson,
  type Json,
  qtyField,
  rawTransactionFromJson,
  withdrawalFromJson,
} from '../l1/rpcJson.js';
import { type Engine, engineNotFound, type L2Block, type L2Label, type L2Payload, type OutputV0 } from './interface.js';
import { blockRefFromBlock, type L2HeaderFields, systemConfigFromBlock } from './l2Block.js';
import { L2_TO_L1_MESSAGE_PASSER, verifyAccountProof } from './output.js';

/** --l2.enginekind. */
export type EngineKind = 'geth' | 'reth' | 'erigon';

/** Behaviour that differs per engine client (op-node's engine kinds). */
export interface EngineQuirks {
  /** The client can EL-sync past a finalized block (reth, erigon); geth cannot, so EL sync stops at finality. */
  postFinalizationElSync: boolean;
}

export function engineQuirks(kind: EngineKind): EngineQuirks {
  return { postFinalizationElSync: kind !== 'geth' };
}

export interface HttpEngineOptions {
  /** --l2 (first URL). */
  url: string;
  /** --l2.jwt-secret contents. */
  jwtSecret: Uint8Array;
  /** --l2.engine-rpc-timeout, ms. */
  timeoutMs: number;
  /** --l2.enginekind */
  kind: EngineKind;
  /** --fetch-withdrawal-root-from-state: eth_getProof even after Isthmus, when the header carries the root. */
  fetchWithdrawalRootFromState: boolean;
}

export const httpEngineDefaults = {
  timeoutMs: 10_000,
  kind: 'geth' as EngineKind,
  fetchWithdrawalRootFromState: false,
} satisfies Partial<HttpEngineOptions>;

/** Times one engine call (op-node's rpc_client metrics); call the result when the call ends. */
export interface EngineClientMetrics {
  recordRpcClientRequest(method: string): (err?: unknown) => void;
}

export interface HttpEngineDeps {
  logger: Logger;
  metrics?: EngineClientMetrics | undefined;
  signal?: AbortSignal | undefined;
}

const qty = (n: number | bigint) => `0x${n.toString(16)}`;

/** An Engine API failure as a TernError with a severity (shared with the in-process engine). */
export function rpcFailure(method: string, err: unknown): TernError {
  if (err instanceof TernError && err.severity !== undefined) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RpcError) {
    if (err.code === RpcErrorCode.invalidPayloadAttributes) {
      return new TernError('ENGINE_INVALID_ATTRIBUTES', `${method}: invalid payload attributes: ${message}`, {
        severity: 'reset',
        cause: err,
      });
    }
    if (err.code === RpcErrorCode.invalidForkchoiceState) {
      return new TernError('ENGINE_INVALID_FORKCHOICE', `${method}: invalid forkchoice state: ${message}`, {
        severity: 'reset',
        cause: err,
      });
    }
    if (err.code === RpcErrorCode.unknownPayload) {
      return new TernError('ENGINE_UNKNOWN_PAYLOAD', `${method}: unknown payload: ${message}`, {
        severity: 'temporary',
        cause: err,
      });
    }
  }
  return new TernError('ENGINE_RPC', `engine ${method} failed: ${message}`, { severity: 'temporary', cause: err });
}

function payloadStatusFromJson(v: unknown): PayloadStatus {
  const o = asJson(v, 'payload status');
  const status = o.status;
  if (status !== 'VALID' && status !== 'INVALID' && status !== 'SYNCING' && status !== 'ACCEPTED') {
    throw new TernError('ENGINE_RPC', `engine answered an unknown payload status ${JSON.stringify(status)}`, {
      severity: 'temporary',
    });
  }
  return {
    status,
    latestValidHash: o.latestValidHash == null ? null : dataField(o, 'latestValidHash', 32),
    validationError: typeof o.validationError === 'string' ? o.validationError : null,
  };
}

function attributesToJson(a: PayloadAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {
    timestamp: qty(a.timestamp),
    prevRandao: hexOf(a.prevRandao),
    suggestedFeeRecipient: hexOf(a.suggestedFeeRecipient),
  };
  if (a.withdrawals !== undefined) {
    out.withdrawals = a.withdrawals.map((w) => ({
      index: qty(w.index),
      validatorIndex: qty(w.validatorIndex),
      address: hexOf(w.address),
      amount: qty(w.amount),
    }));
  }
  if (a.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = hexOf(a.parentBeaconBlockRoot);
  if (a.transactions !== undefined) out.transactions = a.transactions.map(hexOf);
  if (a.noTxPool !== undefined) out.noTxPool = a.noTxPool;
  if (a.gasLimit !== undefined) out.gasLimit = qty(a.gasLimit);
  if (a.eip1559Params !== undefined) out.eip1559Params = hexOf(a.eip1559Params);
  if (a.minBaseFee !== undefined) out.minBaseFee = qty(a.minBaseFee);
  return out;
}

/** An L2 transaction's consensus encoding from its RPC JSON: deposits (0x7e) here, the rest as on L1. */
export function l2TransactionFromJson(o: Json): Uint8Array {
  const type = o.type === undefined || o.type === null ? 0 : Number(qtyField(o, 'type'));
  if (type !== 0x7e) return rawTransactionFromJson(o);
  const to = o.to === undefined || o.to === null ? undefined : dataField(o, 'to', 20);
  return encodeDepositTx({
    sourceHash: dataField(o, 'sourceHash', 32),
    from: dataField(o, 'from', 20),
    to,
    mint: o.mint === undefined || o.mint === null ? 0n : qtyField(o, 'mint'),
    value: qtyField(o, 'value'),
    gasLimit: qtyField(o, 'gas'),
    isSystemTx: o.isSystemTx === true,
    data: dataField(o, 'input'),
  });
}

interface ParsedBlock {
  fields: L2HeaderFields;
  payload: ExecutionPayload;
  parentBeaconBlockRoot: Uint8Array | undefined;
  withdrawalsRoot: Uint8Array | undefined;
  stateRoot: Uint8Array;
}

function parseBlock(json: unknown): ParsedBlock {
  const o = asJson(json, 'L2 block');
  const hash = hashField(o, 'hash');
  const header = headerFromJson(o);
  const txs = o.transactions;
  if (!Array.isArray(txs)) throw engineBad('block answer has no transactions list');
  const transactions = txs.map((t, i) => {
    if (typeof t === 'string') throw engineBad(`block tx ${i} is a hash, not a transaction object`);
    return l2TransactionFromJson(asJson(t, `transaction ${i}`));
  });
  const ws = o.withdrawals;
  const payload: ExecutionPayload = {
    parentHash: header.parentHash,
    feeRecipient: header.coinbase,
    stateRoot: header.stateRoot,
    receiptsRoot: header.receiptsRoot,
    logsBloom: header.logsBloom,
    prevRandao: header.mixHash,
    blockNumber: header.number,
    gasLimit: header.gasLimit,
    gasUsed: header.gasUsed,
    timestamp: header.timestamp,
    extraData: header.extraData,
    baseFeePerGas: header.baseFeePerGas ?? 0n,
    blockHash: dataField(o, 'hash', 32),
    transactions,
  };
  if (Array.isArray(ws)) payload.withdrawals = ws.map((w, i) => withdrawalFromJson(asJson(w, `withdrawal ${i}`)));
  if (header.blobGasUsed !== undefined) payload.blobGasUsed = header.blobGasUsed;
  if (header.excessBlobGas !== undefined) payload.excessBlobGas = header.excessBlobGas;
  return {
    fields: {
      hash,
      number: Number(header.number),
      parentHash: hexOf(header.parentHash),
      timestamp: Number(header.timestamp),
      gasLimit: header.gasLimit,
      extraData: header.extraData,
    },
    payload,
    parentBeaconBlockRoot: header.parentBeaconBlockRoot,
    withdrawalsRoot: header.withdrawalsRoot,
    stateRoot: header.stateRoot,
  };
}

function engineBad(message: string): TernError {
  return new TernError('ENGINE_RPC', `engine answered a malformed block: ${message}`, { severity: 'temporary' });
}

export class HttpEngine implements Engine {
  readonly #cfg: RollupConfig;
  readonly #opts: HttpEngineOptions;
  readonly #rpc: RpcClient;
  readonly #metrics: EngineClientMetrics | undefined;
  readonly quirks: EngineQuirks;

  constructor(cfg: RollupConfig, opts: HttpEngineOptions, deps: HttpEngineDeps) {
    this.#cfg = cfg;
    this.#opts = opts;
    this.#metrics = deps.metrics;
    this.quirks = engineQuirks(opts.kind);
    this.#rpc = new RpcClient(
      { url: opts.url, jwtSecret: opts.jwtSecret, timeoutMs: opts.timeoutMs },
      { logger: deps.logger.child('engine-client'), signal: deps.signal },
    );
  }

  async #call<T>(method: string, params: unknown[]): Promise<T> {
    const done = this.#metrics?.recordRpcClientRequest(method);
    try {
      const result = await this.#rpc.call<T>(method, params);
      done?.();
      return result;
    } catch (err) {
      done?.(err);
      throw rpcFailure(method, err);
    }
  }

  async newPayload(payload: ExecutionPayload, parentBeaconBlockRoot?: Uint8Array): Promise<PayloadStatus> {
    const version = newPayloadVersion(this.#cfg, Number(payload.timestamp));
    const json = executionPayloadToJson(payload);
    const method = `engine_newPayloadV${version}`;
    if (version === 4) {
      return payloadStatusFromJson(
        await this.#call(method, [json, [], hexOf(parentBeaconBlockRoot ?? new Uint8Array(32)), []]),
      );
    }
    delete json.withdrawalsRoot;
    if (version === 3) {
      return payloadStatusFromJson(
        await this.#call(method, [json, [], hexOf(parentBeaconBlockRoot ?? new Uint8Array(32))]),
      );
    }
    return payloadStatusFromJson(await this.#call(method, [json]));
  }

  async forkchoiceUpdated(state: ForkchoiceState, attributes?: PayloadAttributes): Promise<ForkchoiceUpdatedResult> {
    const version = forkchoiceUpdatedVersion(this.#cfg, attributes && Number(attributes.timestamp));
    const method = `engine_forkchoiceUpdatedV${version}`;
    const fcs = {
      headBlockHash: hexOf(state.headBlockHash),
      safeBlockHash: hexOf(state.safeBlockHash),
      finalizedBlockHash: hexOf(state.finalizedBlockHash),
    };
    const result = asJson(
      await this.#call(method, [fcs, attributes === undefined ? null : attributesToJson(attributes)]),
      'forkchoice result',
    );
    return {
      payloadStatus: payloadStatusFromJson(result.payloadStatus),
      payloadId: result.payloadId == null ? null : dataField(result, 'payloadId', 8),
    };
  }

  async getPayload(payloadId: Uint8Array, timestamp: number): Promise<PayloadEnvelope> {
    const version = getPayloadVersion(this.#cfg, timestamp);
    const o = asJson(await this.#call(`engine_getPayloadV${version}`, [hexOf(payloadId)]), 'payload envelope');
    const env: PayloadEnvelope = {
      executionPayload: executionPayloadFromJson(o.executionPayload),
      blockValue: o.blockValue == null ? 0n : qtyField(o, 'blockValue'),
    };
    if (o.parentBeaconBlockRoot != null) env.parentBeaconBlockRoot = dataField(o, 'parentBeaconBlockRoot', 32);
    if (typeof o.shouldOverrideBuilder === 'boolean') env.shouldOverrideBuilder = o.shouldOverrideBuilder;
    return env;
  }

  async #block(tag: string, byHash: boolean, what: string): Promise<ParsedBlock> {
    let json: unknown;
    try {
      json = await this.#call(byHash ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', [tag, true]);
    } catch (err) {
      // geth (and tern-exec) answer "safe block not found" / "finalized block not found" until the consensus
      // client marks one, erigon "Unknown block": op-node's L2 client reads both as not found, so the sync start
      // falls back to genesis instead of retrying forever.
      const cause = err instanceof TernError ? err.cause : undefined;
      if (cause instanceof RpcError && /block not found|unknown block/i.test(cause.message)) throw engineNotFound(what);
      throw err;
    }
    if (json === null || json === undefined) throw engineNotFound(what);
    return parseBlock(json);
  }

  #ref(b: ParsedBlock): L2BlockRef {
    return blockRefFromBlock(this.#cfg, b.fields, b.payload.transactions[0]);
  }

  async l2BlockRefByLabel(label: L2Label): Promise<L2BlockRef> {
    return this.#ref(await this.#block(label, false, `${label} block`));
  }

  async l2BlockRefByNumber(num: number): Promise<L2BlockRef> {
    return this.#ref(await this.#block(qty(num), false, `block ${num}`));
  }

  async l2BlockRefByHash(hash: string): Promise<L2BlockRef> {
    return this.#ref(await this.#block(hash, true, `block ${hash}`));
  }

  async l2BlockByNumber(num: number): Promise<L2Block> {
    const b = await this.#block(qty(num), false, `block ${num}`);
    return { ref: this.#ref(b), transactions: b.payload.transactions };
  }

  async #payload(b: ParsedBlock): Promise<L2Payload> {
    const payload = { ...b.payload };
    if (isIsthmus(this.#cfg, b.fields.timestamp) && b.withdrawalsRoot !== undefined) {
      payload.withdrawalsRoot = b.withdrawalsRoot;
    }
    return { ref: this.#ref(b), payload, parentBeaconBlockRoot: b.parentBeaconBlockRoot };
  }

  async payloadByNumber(num: number): Promise<L2Payload> {
    return this.#payload(await this.#block(qty(num), false, `block ${num}`));
  }

  async payloadByHash(hash: string): Promise<L2Payload> {
    return this.#payload(await this.#block(hash, true, `block ${hash}`));
  }

  async systemConfigByL2Hash(hash: string): Promise<SystemConfig> {
    const b = await this.#block(hash, true, `block ${hash}`);
    return systemConfigFromBlock(this.#cfg, b.fields, b.payload.transactions[0]);
  }

  async outputV0AtBlock(block: number | L2Label): Promise<OutputV0> {
    const tag = typeof block === 'number' ? qty(block) : block;
    const b = await this.#block(tag, false, `block ${tag}`);
    const ref = this.#ref(b);
    let storageRoot: Uint8Array;
    if (isIsthmus(this.#cfg, ref.timestamp) && !this.#opts.fetchWithdrawalRootFromState) {
      if (b.withdrawalsRoot === undefined) throw engineBad(`Isthmus block ${ref.number} has no withdrawalsRoot`);
      storageRoot = b.withdrawalsRoot;
    } else {
      const proof = await this.#call<unknown>('eth_getProof', [L2_TO_L1_MESSAGE_PASSER, [], qty(ref.number)]);
      if (proof === null || proof === undefined) throw engineNotFound(`message passer proof at block ${ref.number}`);
      const p = asJson(proof, 'account proof');
      const list = p.accountProof;
      if (!Array.isArray(list)) throw engineBad('eth_getProof answer has no accountProof');
      storageRoot = dataField(p, 'storageHash', 32);
      await verifyAccountProof(
        b.stateRoot,
        dataField({ a: L2_TO_L1_MESSAGE_PASSER }, 'a', 20),
        list.map((n) => dataField({ n } as Json, 'n')),
        storageRoot,
      );
    }
    return { ref, stateRoot: b.stateRoot, messagePasserStorageRoot: storageRoot, blockHash: b.payload.blockHash };
  }

  /** The block's receipts as the engine encodes them (eth_getBlockReceipts), for the interop supervisor. */
  blockReceipts(hash: string): Promise<unknown> {
    return this.#call('eth_getBlockReceipts', [hash]);
  }

  close(): Promise<void> {
    return this.#rpc.close();
  }
}
