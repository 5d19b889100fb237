// The optimism namespace of tern-node's RPC server (op-node's node/api.go): optimism_syncStatus,
// optimism_outputAtBlock, optimism_rollupConfig, optimism_version, optimism_safeHeadAtL1Block, with op-node's
// parameter types (hexutil.Uint64 block numbers) and JSON shapes (json.ts). The admin namespace (sequencer issue)
// registers on the same registry only with --rpc.enable-admin.
import { TernError } from '../../common/errors.js';
import { checkArity, decodeUint64, param } from '../../common/rpc/params.js';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import { type RollupConfig, rollupConfigToJson } from '../../primitives/rollup/config.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { SyncStatus } from '../driver/driver.js';
import type { OutputV0 } from '../engine/interface.js';
import type { SafeHeadStore } from '../safedb/safedb.js';
import { outputResponseJson, safeHeadResponseJson, syncStatusJson } from './json.js';

export interface OptimismApiDeps {
  config: RollupConfig;
  syncStatus(): SyncStatus;
  outputAtBlock(num: number): Promise<OutputV0>;
  safeDb: SafeHeadStore;
  /** The optimism_version answer. */
  version: string;
  /** op-node's rpc_server metrics; call the result when the request is done. */
  recordRequest?: ((method: string) => () => void) | undefined;
}

/** Node errors as JSON-RPC errors: geth's default server code with the error's message. */
function toRpcError(err: unknown): unknown {
  if (err instanceof TernError) {
    if (err.code === 'ENGINE_NOT_FOUND' || err.code === 'SAFEDB_NOT_FOUND') return serverError('not found');
    return serverError(err.message);
  }
  return err;
}

export function registerOptimismApi(registry: RpcRegistry, deps: OptimismApiDeps): RpcRegistry {
  const timed =
    (method: string, fn: (params: unknown[]) => unknown) =>
    async (params: unknown[]): Promise<unknown> => {
      const done = deps.recordRequest?.(`optimism_${method}`);
      try {
        return await fn(params);
      } catch (err) {
        throw toRpcError(err);
      } finally {
        done?.();
      }
    };
  const configJson = rollupConfigToJson(deps.config);
  return registry.registerNamespace('optimism', {
    syncStatus: timed('syncStatus', (params) => {
      checkArity(params, 0);
      return syncStatusJson(deps.syncStatus());
    }),
    outputAtBlock: timed('outputAtBlock', async (params) => {
      checkArity(params, 1);
      const num = param(params, 0, decodeUint64);
      const output = await deps.outputAtBlock(Number(num));
      return outputResponseJson(output, deps.syncStatus());
    }),
    rollupConfig: timed('rollupConfig', (params) => {
      checkArity(params, 0);
      return configJson;
    }),
    version: timed('version', (params) => {
      checkArity(params, 0);
      return deps.version;
    }),
    safeHeadAtL1Block: timed('safeHeadAtL1Block', async (params) => {
      checkArity(params, 1);
      const num = param(params, 0, decodeUint64);
      return safeHeadResponseJson(await deps.safeDb.safeHeadAtL1(Number(num)));
    }),
  });
}
