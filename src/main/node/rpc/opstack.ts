// The experimental `opstack` block-building namespace (op-node's opstackAPI, served with
// --experimental.sequencer-api): an external sequencer (op-test-sequencer) drives block building step by step.
//   opstack_openBlockV1(parent BlockID, attrs PayloadAttributes) → PayloadInfo {id, timestamp}
//   opstack_cancelBlockV1(PayloadInfo) → null
//   opstack_sealBlockV1(PayloadInfo) → ExecutionPayloadEnvelope {executionPayload, parentBeaconBlockRoot?}
//   opstack_commitBlockV1(SignedExecutionPayloadEnvelope {envelope, signature}) → null (becomes the unsafe head)
//   opstack_publishBlockV1(SignedExecutionPayloadEnvelope) → null (the gossip message goes to the publisher)
// Wire shapes follow op-service/eth: BlockID and PayloadInfo carry plain JSON numbers, payloads the Engine API's
// hex encoding. Build failures carry op-service/apis' codes (-40100 temporary, -40101 prestate, -40110 invalid
// input, -40120 unknown payload, -40199 other); a missing parent is a plain server error, as in op-node.
// Every engine call runs under the driver's lock (runExclusive), so it never interleaves with a derivation step.
import { TernError } from '../../common/errors.js';
import { checkArity, decodeObject, param } from '../../common/rpc/params.js';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import {
  executionPayloadFromJson,
  executionPayloadToJson,
  hashFromJson,
  payloadAttributesFromJson,
  payloadIdFromJson,
} from '../../protocol/engine/types.js';
import { invalidParams, RpcError, serverError } from '../../protocol/jsonrpc/errors.js';
import type { PayloadEnvelopeLike } from '../conductor/interface.js';
import { fromHex, toHex } from '../derive/types.js';
import type { EngineController } from '../engine/engineController.js';
import type { ExecutionPayload, PayloadAttributes } from '../engine/interface.js';
import { type BlockVersion, gossipPayload } from '../signer/gossipPayload.js';

/** op-service/apis/opstack.go's build error codes. */
export const BuildErrCode = {
  temporary: -40100,
  prestate: -40101,
  invalidInput: -40110,
  unknownPayload: -40120,
  other: -40199,
} as const;

/** op-service/eth.PayloadInfo. */
export interface PayloadInfo {
  id: Uint8Array;
  timestamp: number;
}

/** op-service/signer.SignedExecutionPayloadEnvelope. */
export interface SignedEnvelope {
  envelope: PayloadEnvelopeLike;
  signature: Uint8Array;
}

/** What publishBlockV1 hands on: the gossip message (signature ‖ payload) of the block's topic version. */
export interface PublishedBlock {
  version: BlockVersion;
  hash: string;
  number: number;
  signature: Uint8Array;
  message: Uint8Array;
}

export interface OpstackApiDeps {
  config: RollupConfig;
  controller: Pick<EngineController, 'engine' | 'heads' | 'insertUnsafePayload'>;
  /** The driver's runExclusive. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Broadcasts a signed block (P2P gossip-out); throws when it cannot. */
  publish(block: PublishedBlock): Promise<void>;
  recordRequest?: ((method: string) => () => void) | undefined;
}

const buildError = (code: number, message: string) => new RpcError(code, message);
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const hexOf = (b: Uint8Array) => toHex(b) as string;

// ---- wire shapes --------------------------------------------------------------------------------------------

function plainUint(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw invalidParams(`${what}: want a non-negative integer (JSON number)`);
  return v;
}

function blockIdFromJson(v: unknown): { hash: string; number: number } {
  const o = decodeObject(v);
  return { hash: toHex(hashFromJson(o.hash, 'hash')), number: plainUint(o.number, 'number') };
}

function payloadInfoFromJson(v: unknown): PayloadInfo {
  const o = decodeObject(v);
  return { id: payloadIdFromJson(o.id), timestamp: plainUint(o.timestamp, 'timestamp') };
}

export function payloadInfoJson(info: PayloadInfo): { id: string; timestamp: number } {
  return { id: hexOf(info.id), timestamp: info.timestamp };
}

function envelopeFromJson(v: unknown): PayloadEnvelopeLike {
  const o = decodeObject(v);
  if (o.executionPayload === undefined || o.executionPayload === null)
    throw invalidParams('envelope: missing executionPayload');
  const env: PayloadEnvelopeLike = { executionPayload: executionPayloadFromJson(o.executionPayload) };
  if (o.parentBeaconBlockRoot !== undefined && o.parentBeaconBlockRoot !== null)
    env.parentBeaconBlockRoot = hashFromJson(o.parentBeaconBlockRoot, 'parentBeaconBlockRoot');
  return env;
}

export function envelopeJson(env: PayloadEnvelopeLike): Record<string, unknown> {
  const out: Record<string, unknown> = { executionPayload: executionPayloadToJson(env.executionPayload) };
  if (env.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = hexOf(env.parentBeaconBlockRoot);
  return out;
}

function signedEnvelopeFromJson(v: unknown): SignedEnvelope {
  const o = decodeObject(v);
  if (o.envelope === undefined || o.envelope === null) throw invalidParams('missing envelope');
  if (typeof o.signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(o.signature))
    throw invalidParams('signature: want 65 bytes of 0x-prefixed hex');
  return { envelope: envelopeFromJson(o.envelope), signature: fromHex(o.signature) };
}

// ---- the namespace ------------------------------------------------------------------------------------------

const isUnknownPayload = (err: unknown) => err instanceof TernError && err.code === 'ENGINE_UNKNOWN_PAYLOAD';

/** op-node's startPayload error classes, as opstack build codes. */
function openError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof TernError) {
    if (err.code === 'ENGINE_INVALID_ATTRIBUTES')
      return buildError(BuildErrCode.prestate, `invalid payload attributes: ${err.message}`);
    if (err.code === 'ENGINE_INVALID_FORKCHOICE' || err.severity === 'reset')
      return buildError(BuildErrCode.prestate, `need reset to resolve pre-state problem: ${err.message}`);
    return buildError(BuildErrCode.temporary, `temporarily cannot insert new safe block: ${err.message}`);
  }
  return buildError(BuildErrCode.other, `unknown error: ${messageOf(err)}`);
}

export function registerOpstackApi(registry: RpcRegistry, deps: OpstackApiDeps): RpcRegistry {
  const { controller } = deps;
  const timed =
    (method: string, fn: (params: unknown[]) => unknown) =>
    async (params: unknown[]): Promise<unknown> => {
      const done = deps.recordRequest?.(`opstack_${method}`);
      try {
        return await fn(params);
      } catch (err) {
        if (err instanceof RpcError) throw err;
        throw serverError(messageOf(err));
      } finally {
        done?.();
      }
    };

  const openBlock = async (parent: { hash: string; number: number }, attrs: PayloadAttributes) => {
    try {
      await controller.engine.l2BlockRefByHash(parent.hash);
    } catch (err) {
      throw serverError(
        `failed to retrieve parent block ${parent.hash}:${parent.number} from engine: ${messageOf(err)}`,
      );
    }
    try {
      const h = controller.heads;
      const r = await controller.engine.forkchoiceUpdated(
        {
          headBlockHash: fromHex(parent.hash),
          safeBlockHash: fromHex(h.safe.hash),
          finalizedBlockHash: fromHex(h.finalized.hash),
        },
        attrs,
      );
      const s = r.payloadStatus;
      if (s.status === 'INVALID') {
        throw buildError(
          BuildErrCode.prestate,
          `invalid payload attributes: forkchoiceUpdated answered ${s.status}${s.validationError ? `: ${s.validationError}` : ''}`,
        );
      }
      if (s.status !== 'VALID') {
        throw buildError(
          BuildErrCode.temporary,
          `temporarily cannot insert new safe block: forkchoiceUpdated answered ${s.status}`,
        );
      }
      if (r.payloadId === null)
        throw buildError(BuildErrCode.temporary, 'temporarily cannot insert new safe block: nil payload id');
      return { id: r.payloadId, timestamp: Number(attrs.timestamp) };
    } catch (err) {
      throw openError(err);
    }
  };

  const getPayload = async (info: PayloadInfo, what: 'cancel' | 'seal') => {
    try {
      return await controller.engine.getPayload(info.id, info.timestamp);
    } catch (err) {
      if (isUnknownPayload(err)) throw buildError(BuildErrCode.unknownPayload, 'unknown payload');
      throw buildError(BuildErrCode.other, `failed to ${what} payload: ${messageOf(err)}`);
    }
  };

  const commitBlock = async (signed: SignedEnvelope) => {
    const { executionPayload, parentBeaconBlockRoot } = signed.envelope;
    try {
      await controller.insertUnsafePayload(executionPayload, parentBeaconBlockRoot, { local: true });
    } catch (err) {
      if (err instanceof TernError && err.code === 'ENGINE_INVALID')
        throw buildError(BuildErrCode.invalidInput, `execution invalid: ${err.message}`);
      throw serverError(`failed to insert payload: ${messageOf(err)}`);
    }
  };

  const publishBlock = async (signed: SignedEnvelope) => {
    const p: ExecutionPayload = signed.envelope.executionPayload;
    let version: BlockVersion;
    let bytes: Uint8Array;
    try {
      ({ version, bytes } = gossipPayload(deps.config, p, signed.envelope.parentBeaconBlockRoot));
    } catch (err) {
      throw buildError(BuildErrCode.invalidInput, `cannot encode the block for gossip: ${messageOf(err)}`);
    }
    const message = new Uint8Array(65 + bytes.length);
    message.set(signed.signature, 0);
    message.set(bytes, 65);
    await deps.publish({
      version,
      hash: hexOf(p.blockHash),
      number: Number(p.blockNumber),
      signature: signed.signature,
      message,
    });
  };

  return registry.registerNamespace('opstack', {
    openBlockV1: timed('openBlockV1', async (params) => {
      checkArity(params, 2);
      const parent = param(params, 0, blockIdFromJson);
      const attrs = param(params, 1, payloadAttributesFromJson);
      const info = await deps.exclusive(() => openBlock(parent, attrs));
      return payloadInfoJson(info);
    }),
    cancelBlockV1: timed('cancelBlockV1', async (params) => {
      checkArity(params, 1);
      const info = param(params, 0, payloadInfoFromJson);
      await deps.exclusive(() => getPayload(info, 'cancel'));
      return null;
    }),
    sealBlockV1: timed('sealBlockV1', async (params) => {
      checkArity(params, 1);
      const info = param(params, 0, payloadInfoFromJson);
      const env = await deps.exclusive(() => getPayload(info, 'seal'));
      return envelopeJson({
        executionPayload: env.executionPayload,
        parentBeaconBlockRoot: env.parentBeaconBlockRoot,
      });
    }),
    commitBlockV1: timed('commitBlockV1', async (params) => {
      checkArity(params, 1);
      const signed = param(params, 0, signedEnvelopeFromJson);
      await deps.exclusive(() => commitBlock(signed));
      return null;
    }),
    publishBlockV1: timed('publishBlockV1', async (params) => {
      checkArity(params, 1);
      await publishBlock(param(params, 0, signedEnvelopeFromJson));
      return null;
    }),
  });
}
