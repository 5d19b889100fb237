// Engine API structures (execution-apis src/engine/: paris … prague, with the OP Stack's extensions from
// specs/protocol/exec-engine.md) in two forms: typed (bytes and bigints, what the in-process engine passes) and
// JSON (what the auth RPC carries), with the codecs between them. JSON decoding raises -32602 for bad shapes.

import type { Withdrawal } from '../../primitives/block/block.js';
import { toHex as hexOf } from '../../primitives/bytes.js';
import { RpcError, RpcErrorCode } from '../jsonrpc/errors.js';

export type Hex = `0x${string}`;

export interface ExecutionPayload {
  parentHash: Uint8Array;
  feeRecipient: Uint8Array;
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  prevRandao: Uint8Array;
  blockNumber: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  baseFeePerGas: bigint;
  blockHash: Uint8Array;
  transactions: Uint8Array[];
  /** V2 on. */
  withdrawals?: Withdrawal[] | undefined;
  /** V3 on. */
  blobGasUsed?: bigint | undefined;
  excessBlobGas?: bigint | undefined;
  /** OP Isthmus: the L2ToL1MessagePasser storage root carried in the payload. */
  withdrawalsRoot?: Uint8Array | undefined;
}

export interface PayloadAttributes {
  timestamp: bigint;
  prevRandao: Uint8Array;
  suggestedFeeRecipient: Uint8Array;
  withdrawals?: Withdrawal[] | undefined;
  parentBeaconBlockRoot?: Uint8Array | undefined;
  /** OP extensions. */
  transactions?: Uint8Array[] | undefined;
  noTxPool?: boolean | undefined;
  gasLimit?: bigint | undefined;
  eip1559Params?: Uint8Array | undefined;
  minBaseFee?: bigint | undefined;
}

export interface ForkchoiceState {
  headBlockHash: Uint8Array;
  safeBlockHash: Uint8Array;
  finalizedBlockHash: Uint8Array;
}

export type PayloadStatusKind = 'VALID' | 'INVALID' | 'SYNCING' | 'ACCEPTED';

export interface PayloadStatus {
  status: PayloadStatusKind;
  latestValidHash: Uint8Array | null;
  validationError: string | null;
}

export interface ForkchoiceUpdatedResult {
  payloadStatus: PayloadStatus;
  /** 8 bytes, when a build was started. */
  payloadId: Uint8Array | null;
}

export interface BlobsBundle {
  commitments: Uint8Array[];
  proofs: Uint8Array[];
  blobs: Uint8Array[];
}

export interface PayloadEnvelope {
  executionPayload: ExecutionPayload;
  blockValue: bigint;
  /** V3 on. */
  blobsBundle?: BlobsBundle | undefined;
  shouldOverrideBuilder?: boolean | undefined;
  /** OP: V3 on. */
  parentBeaconBlockRoot?: Uint8Array | undefined;
  /** V4 on. */
  executionRequests?: Uint8Array[] | undefined;
}

export interface PayloadBody {
  transactions: Uint8Array[];
  withdrawals: Withdrawal[] | null;
}

export interface SuperchainSignal {
  recommended: Uint8Array;
  required: Uint8Array;
}

// ---- JSON codecs ------------------------------------------------------------------------------------------------

export const invalidParams = (message: string) => new RpcError(RpcErrorCode.invalidParams, message);

const qty = (n: bigint): Hex => `0x${n.toString(16)}`;

/**
 * A list of hex data strings (a payload's transactions) decoded into views of ONE new buffer: one allocation and
 * one pass for thousands of transactions, and a block that crosses to the executor thread as one buffer rather
 * than one per transaction. The same checks and messages as `data` for each item.
 */
function dataList(v: unknown, what: string): Uint8Array[] {
  if (!Array.isArray(v)) throw invalidParams(`${what} must be an array`);
  let total = 0;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'string' || !x.startsWith('0x') || (x.length & 1) !== 0)
      throw invalidParams(`${what}[${i}]: invalid hex data`);
    total += (x.length - 2) >> 1;
  }
  const bytes = new Uint8Array(total);
  const out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const items: Uint8Array[] = new Array(v.length);
  let at = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as string;
    const n = (x.length - 2) >> 1;
    // Buffer's hex decoder stops at the first pair that is not hex: fewer bytes than the text holds means bad hex.
    if (n > 0 && out.write(x.slice(2), at, n, 'hex') !== n) throw invalidParams(`${what}[${i}]: invalid hex data`);
    items[i] = bytes.subarray(at, at + n);
    at += n;
  }
  return items;
}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function data(v: unknown, what: string, len?: number): Uint8Array {
  // Buffer's hex decoder stops at the first pair that is not hex: a short result is what the pattern
  // /^0x([0-9a-fA-F]{2})*$/ refuses, at half its cost (a payload carries hundreds of transactions).
  const decoded = typeof v === 'string' && v.startsWith('0x') ? Buffer.from(v.slice(2), 'hex') : undefined;
  if (decoded === undefined || decoded.length * 2 !== (v as string).length - 2)
    throw invalidParams(`${what}: invalid hex data`);
  // A plain copy: small decodes share Buffer's pool slab, which must not travel with the bytes to another thread.
  const b = new Uint8Array(decoded);
  if (len !== undefined && b.length !== len) throw invalidParams(`${what}: want ${len} bytes, have ${b.length}`);
  return b;
}

function quantity(v: unknown, what: string, bits = 64): bigint {
  if (typeof v !== 'string' || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(v))
    throw invalidParams(`${what}: invalid quantity`);
  const n = BigInt(v);
  if (n >= 1n << BigInt(bits)) throw invalidParams(`${what}: quantity exceeds ${bits} bits`);
  return n;
}

const present = (v: unknown) => v !== undefined && v !== null;

function list<T>(v: unknown, what: string, item: (x: unknown, w: string) => T): T[] {
  if (!Array.isArray(v)) throw invalidParams(`${what} must be an array`);
  return v.map((x, i) => item(x, `${what}[${i}]`));
}

function withdrawalFromJson(v: unknown, what: string): Withdrawal {
  const o = obj(v, what);
  return {
    index: quantity(o.index, `${what}.index`),
    validatorIndex: quantity(o.validatorIndex, `${what}.validatorIndex`),
    address: data(o.address, `${what}.address`, 20),
    amount: quantity(o.amount, `${what}.amount`),
  };
}

function withdrawalToJson(w: Withdrawal): Record<string, Hex> {
  return {
    index: qty(w.index),
    validatorIndex: qty(w.validatorIndex),
    address: hexOf(w.address),
    amount: qty(w.amount),
  };
}

export function hashFromJson(v: unknown, what = 'hash'): Uint8Array {
  return data(v, what, 32);
}

export function hashesFromJson(v: unknown, what: string): Uint8Array[] {
  return list(v, what, (x, w) => data(x, w, 32));
}

export function bytesListFromJson(v: unknown, what: string): Uint8Array[] {
  return list(v, what, (x, w) => data(x, w));
}

export function quantityFromJson(v: unknown, what: string): bigint {
  return quantity(v, what);
}

export function payloadIdFromJson(v: unknown): Uint8Array {
  return data(v, 'payloadId', 8);
}

export function executionPayloadFromJson(v: unknown): ExecutionPayload {
  const o = obj(v, 'executionPayload');
  const p: ExecutionPayload = {
    parentHash: data(o.parentHash, 'parentHash', 32),
    feeRecipient: data(o.feeRecipient, 'feeRecipient', 20),
    stateRoot: data(o.stateRoot, 'stateRoot', 32),
    receiptsRoot: data(o.receiptsRoot, 'receiptsRoot', 32),
    logsBloom: data(o.logsBloom, 'logsBloom', 256),
    prevRandao: data(o.prevRandao, 'prevRandao', 32),
    blockNumber: quantity(o.blockNumber, 'blockNumber'),
    gasLimit: quantity(o.gasLimit, 'gasLimit'),
    gasUsed: quantity(o.gasUsed, 'gasUsed'),
    timestamp: quantity(o.timestamp, 'timestamp'),
    extraData: data(o.extraData, 'extraData'),
    baseFeePerGas: quantity(o.baseFeePerGas, 'baseFeePerGas', 256),
    blockHash: data(o.blockHash, 'blockHash', 32),
    transactions: dataList(o.transactions, 'transactions'),
  };
  if (present(o.withdrawals)) p.withdrawals = list(o.withdrawals, 'withdrawals', withdrawalFromJson);
  if (present(o.blobGasUsed)) p.blobGasUsed = quantity(o.blobGasUsed, 'blobGasUsed');
  if (present(o.excessBlobGas)) p.excessBlobGas = quantity(o.excessBlobGas, 'excessBlobGas');
  if (present(o.withdrawalsRoot)) p.withdrawalsRoot = data(o.withdrawalsRoot, 'withdrawalsRoot', 32);
  return p;
}

export function executionPayloadToJson(p: ExecutionPayload): Record<string, unknown> {
  const out: Record<string, unknown> = {
    parentHash: hexOf(p.parentHash),
    feeRecipient: hexOf(p.feeRecipient),
    stateRoot: hexOf(p.stateRoot),
    receiptsRoot: hexOf(p.receiptsRoot),
    logsBloom: hexOf(p.logsBloom),
    prevRandao: hexOf(p.prevRandao),
    blockNumber: qty(p.blockNumber),
    gasLimit: qty(p.gasLimit),
    gasUsed: qty(p.gasUsed),
    timestamp: qty(p.timestamp),
    extraData: hexOf(p.extraData),
    baseFeePerGas: qty(p.baseFeePerGas),
    blockHash: hexOf(p.blockHash),
    transactions: p.transactions.map(hexOf),
  };
  if (p.withdrawals) out.withdrawals = p.withdrawals.map(withdrawalToJson);
  if (p.blobGasUsed !== undefined) out.blobGasUsed = qty(p.blobGasUsed);
  if (p.excessBlobGas !== undefined) out.excessBlobGas = qty(p.excessBlobGas);
  if (p.withdrawalsRoot !== undefined) out.withdrawalsRoot = hexOf(p.withdrawalsRoot);
  return out;
}

export function forkchoiceStateFromJson(v: unknown): ForkchoiceState {
  const o = obj(v, 'forkchoiceState');
  return {
    headBlockHash: data(o.headBlockHash, 'headBlockHash', 32),
    safeBlockHash: data(o.safeBlockHash, 'safeBlockHash', 32),
    finalizedBlockHash: data(o.finalizedBlockHash, 'finalizedBlockHash', 32),
  };
}

export function payloadAttributesFromJson(v: unknown): PayloadAttributes {
  const o = obj(v, 'payloadAttributes');
  const a: PayloadAttributes = {
    timestamp: quantity(o.timestamp, 'timestamp'),
    prevRandao: data(o.prevRandao, 'prevRandao', 32),
    suggestedFeeRecipient: data(o.suggestedFeeRecipient, 'suggestedFeeRecipient', 20),
  };
  if (present(o.withdrawals)) a.withdrawals = list(o.withdrawals, 'withdrawals', withdrawalFromJson);
  if (present(o.parentBeaconBlockRoot))
    a.parentBeaconBlockRoot = data(o.parentBeaconBlockRoot, 'parentBeaconBlockRoot', 32);
  if (present(o.transactions)) a.transactions = dataList(o.transactions, 'transactions');
  if (present(o.noTxPool)) {
    if (typeof o.noTxPool !== 'boolean') throw invalidParams('noTxPool must be a boolean');
    a.noTxPool = o.noTxPool;
  }
  if (present(o.gasLimit)) a.gasLimit = quantity(o.gasLimit, 'gasLimit');
  if (present(o.eip1559Params)) a.eip1559Params = data(o.eip1559Params, 'eip1559Params');
  if (present(o.minBaseFee)) a.minBaseFee = quantity(o.minBaseFee, 'minBaseFee');
  return a;
}

export function payloadStatusToJson(s: PayloadStatus): Record<string, unknown> {
  return {
    status: s.status,
    latestValidHash: s.latestValidHash ? hexOf(s.latestValidHash) : null,
    validationError: s.validationError,
  };
}

export function forkchoiceResultToJson(r: ForkchoiceUpdatedResult): Record<string, unknown> {
  return { payloadStatus: payloadStatusToJson(r.payloadStatus), payloadId: r.payloadId ? hexOf(r.payloadId) : null };
}

export function envelopeToJson(e: PayloadEnvelope): Record<string, unknown> {
  const out: Record<string, unknown> = {
    executionPayload: executionPayloadToJson(e.executionPayload),
    blockValue: qty(e.blockValue),
  };
  if (e.blobsBundle) {
    out.blobsBundle = {
      commitments: e.blobsBundle.commitments.map(hexOf),
      proofs: e.blobsBundle.proofs.map(hexOf),
      blobs: e.blobsBundle.blobs.map(hexOf),
    };
  }
  if (e.shouldOverrideBuilder !== undefined) out.shouldOverrideBuilder = e.shouldOverrideBuilder;
  if (e.parentBeaconBlockRoot) out.parentBeaconBlockRoot = hexOf(e.parentBeaconBlockRoot);
  if (e.executionRequests) out.executionRequests = e.executionRequests.map(hexOf);
  return out;
}

export function bodyToJson(b: PayloadBody | null): Record<string, unknown> | null {
  if (b === null) return null;
  return {
    transactions: b.transactions.map(hexOf),
    withdrawals: b.withdrawals ? b.withdrawals.map(withdrawalToJson) : null,
  };
}

export function superchainSignalFromJson(v: unknown): SuperchainSignal {
  const o = obj(v, 'signal');
  return { recommended: data(o.recommended, 'recommended', 32), required: data(o.required, 'required', 32) };
}

export { hexOf };
