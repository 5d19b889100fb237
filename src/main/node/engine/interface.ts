// The Engine: everything tern-node asks of the execution engine. The Engine API calls (newPayload,
// forkchoiceUpdated, getPayload, in tern-exec's typed form: bytes and bigints) and the L2 reads derivation and the
// RPC server need (block references, blocks, payloads, the system config carried by a block, output-root data).
// Implementations: http.ts (JSON-RPC + JWT to any op-geth-compatible engine); an in-process one can call tern-exec's
// EngineApi directly with the same types.
//
// Errors are TernErrors: ENGINE_NOT_FOUND (temporary; the engine does not have the block or label),
// ENGINE_RPC (temporary; transport or JSON-RPC failure), ENGINE_BAD_BLOCK (reset; the block is not a valid L2 block
// of this rollup, e.g. no L1-info deposit), ENGINE_WRONG_CHAIN (critical; the engine's genesis differs).
import { TernError } from '../../common/errors.js';
import type { L2BlockRef } from '../../primitives/rollup/blockRef.js';
import type {
  ExecutionPayload,
  ForkchoiceState,
  ForkchoiceUpdatedResult,
  PayloadAttributes,
  PayloadEnvelope,
  PayloadStatus,
} from '../../protocol/engine/types.js';
import type { SystemConfig } from '../derive/types.js';

export type {
  ExecutionPayload,
  ForkchoiceState,
  ForkchoiceUpdatedResult,
  PayloadAttributes,
  PayloadEnvelope,
  PayloadStatus,
};

/** The engine's forkchoice labels ('latest' is the unsafe head). */
export type L2Label = 'latest' | 'safe' | 'finalized';

/** A block with its consensus-encoded transactions (deposits included), as derivation's batch checks read it. */
export interface L2Block {
  ref: L2BlockRef;
  transactions: readonly Uint8Array[];
}

/** A block as an execution payload, with what a payload alone lacks (Ecotone's parent beacon block root). */
export interface L2Payload {
  ref: L2BlockRef;
  payload: ExecutionPayload;
  parentBeaconBlockRoot?: Uint8Array | undefined;
}

/** The three commitments of output root v0 and the block they belong to. */
export interface OutputV0 {
  ref: L2BlockRef;
  stateRoot: Uint8Array;
  /** Storage root of the L2ToL1MessagePasser predeploy (the withdrawal storage root). */
  messagePasserStorageRoot: Uint8Array;
  blockHash: Uint8Array;
}

export interface Engine {
  /** engine_newPayloadV2/V3/V4 by the payload's timestamp (V3 from Ecotone, V4 from Isthmus). */
  newPayload(payload: ExecutionPayload, parentBeaconBlockRoot?: Uint8Array): Promise<PayloadStatus>;
  /** engine_forkchoiceUpdatedV1/V2/V3 by the attributes' timestamp; V3 without attributes (op-node's choice). */
  forkchoiceUpdated(state: ForkchoiceState, attributes?: PayloadAttributes): Promise<ForkchoiceUpdatedResult>;
  /** engine_getPayloadV2/V3/V4 by the timestamp of the payload being built. */
  getPayload(payloadId: Uint8Array, timestamp: number): Promise<PayloadEnvelope>;

  l2BlockRefByLabel(label: L2Label): Promise<L2BlockRef>;
  l2BlockRefByNumber(num: number): Promise<L2BlockRef>;
  l2BlockRefByHash(hash: string): Promise<L2BlockRef>;
  l2BlockByNumber(num: number): Promise<L2Block>;
  payloadByNumber(num: number): Promise<L2Payload>;
  payloadByHash(hash: string): Promise<L2Payload>;
  /** The system config in force after the block: its L1-info deposit and header (genesis: the rollup config's). */
  systemConfigByL2Hash(hash: string): Promise<SystemConfig>;
  /** Output-root v0 data of a block by number (or label). */
  outputV0AtBlock(block: number | L2Label): Promise<OutputV0>;
  close(): Promise<void>;
}

export function engineNotFound(what: string): TernError {
  return new TernError('ENGINE_NOT_FOUND', `L2 ${what} not found in the execution engine`, { severity: 'temporary' });
}

export function isNotFound(err: unknown): boolean {
  return err instanceof TernError && err.code === 'ENGINE_NOT_FOUND';
}
