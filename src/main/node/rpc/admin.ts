// The admin namespace of tern-node's RPC server (op-node's node/api.go adminAPI and op-service's common admin
// API), registered only with --rpc.enable-admin: admin_resetDerivationPipeline, admin_startSequencer(blockHash),
// admin_stopSequencer (→ the hash of the head it stopped on), admin_sequencerActive, admin_postUnsafePayload
// (op-conductor's failover path; the engine checks the block hash), admin_overrideLeader,
// admin_conductorEnabled, admin_setLogLevel, and admin_setRecoverMode (--sequencer.recover at runtime).
// A replica answers the sequencer methods with "sequencer is not enabled", as op-node does.
import { TernError } from '../../common/errors.js';
import { type LogLevel, levelFromName } from '../../common/logger/index.js';
import { checkArity, decodeBool, decodeHash, decodeObject, decodeString, param } from '../../common/rpc/params.js';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import { executionPayloadFromJson } from '../../protocol/engine/types.js';
import { invalidParams, serverError } from '../../protocol/jsonrpc/errors.js';
import type { PayloadEnvelopeLike, SequencerConductor } from '../conductor/interface.js';

/** What the admin API needs of the sequencer (sequencer/sequencer.ts Sequencer). */
export interface AdminSequencer {
  readonly active: boolean;
  start(blockHash: string): Promise<void>;
  stop(): Promise<string>;
  setRecoverMode(on: boolean): void;
}

export interface AdminApiDeps {
  /** Undefined on a replica. */
  sequencer?: AdminSequencer | undefined;
  conductor?: SequencerConductor | undefined;
  /** The driver's requestReset. */
  resetDerivationPipeline(): void | Promise<void>;
  /** Inserts a payload as the new unsafe head (under the driver's lock). */
  postUnsafePayload(env: PayloadEnvelopeLike): Promise<void>;
  /** The root logger's setLevel. */
  setLogLevel(level: LogLevel): void;
  recordRequest?: ((method: string) => () => void) | undefined;
}

const notEnabled = () => serverError('sequencer is not enabled');

function toRpcError(err: unknown): unknown {
  if (err instanceof TernError) return serverError(err.message);
  return err;
}

function envelopeFromJson(v: unknown): PayloadEnvelopeLike {
  const o = decodeObject(v);
  if (o.executionPayload === undefined || o.executionPayload === null)
    throw invalidParams('envelope: missing executionPayload');
  const env: PayloadEnvelopeLike = { executionPayload: executionPayloadFromJson(o.executionPayload) };
  if (o.parentBeaconBlockRoot !== undefined && o.parentBeaconBlockRoot !== null) {
    env.parentBeaconBlockRoot = Uint8Array.from(Buffer.from(decodeHash(o.parentBeaconBlockRoot).slice(2), 'hex'));
  }
  return env;
}

export function registerAdminApi(registry: RpcRegistry, deps: AdminApiDeps): RpcRegistry {
  const timed =
    (method: string, fn: (params: unknown[]) => unknown) =>
    async (params: unknown[]): Promise<unknown> => {
      const done = deps.recordRequest?.(`admin_${method}`);
      try {
        return await fn(params);
      } catch (err) {
        throw toRpcError(err);
      } finally {
        done?.();
      }
    };
  const seq = (): AdminSequencer => {
    if (deps.sequencer === undefined) throw notEnabled();
    return deps.sequencer;
  };
  return registry.registerNamespace('admin', {
    resetDerivationPipeline: timed('resetDerivationPipeline', async (params) => {
      checkArity(params, 0);
      await deps.resetDerivationPipeline();
      return null;
    }),
    startSequencer: timed('startSequencer', async (params) => {
      checkArity(params, 1);
      const hash = param(params, 0, decodeHash);
      await seq().start(hash.toLowerCase());
      return null;
    }),
    stopSequencer: timed('stopSequencer', async (params) => {
      checkArity(params, 0);
      return seq().stop();
    }),
    sequencerActive: timed('sequencerActive', (params) => {
      checkArity(params, 0);
      return deps.sequencer?.active ?? false;
    }),
    postUnsafePayload: timed('postUnsafePayload', async (params) => {
      checkArity(params, 1);
      await deps.postUnsafePayload(param(params, 0, envelopeFromJson));
      return null;
    }),
    overrideLeader: timed('overrideLeader', async (params) => {
      checkArity(params, 0);
      await deps.conductor?.overrideLeader();
      return null;
    }),
    conductorEnabled: timed('conductorEnabled', (params) => {
      checkArity(params, 0);
      return deps.conductor?.enabled ?? false;
    }),
    setLogLevel: timed('setLogLevel', (params) => {
      checkArity(params, 1);
      const name = param(params, 0, decodeString);
      let level: LogLevel;
      try {
        level = levelFromName(name);
      } catch (err) {
        throw invalidParams((err as Error).message);
      }
      deps.setLogLevel(level);
      return null;
    }),
    setRecoverMode: timed('setRecoverMode', (params) => {
      checkArity(params, 1);
      seq().setRecoverMode(param(params, 0, decodeBool));
      return null;
    }),
  });
}
