// The engine tern-node drives in tern-pair: the InProcessEngine over the tern-exec node running in this process.
// Before handing it over, the rollup config is checked against tern-exec's chain (chain id, and the L2 genesis
// block when tern-exec holds it), so a mismatched pair stops at startup with one clear line.
import { UsageError } from '../common/errors.js';
import type { ExecNode } from '../exec/node.js';
import type { EngineFactory, ReplicaOptions } from '../node/driver/replica.js';
import { InProcessEngine } from '../node/engine/inProcess.js';
import { toHex as hex } from '../primitives/bytes.js';
import type { RollupConfig } from '../primitives/rollup/config.js';

/** Throws a UsageError when the rollup config does not describe the chain tern-exec holds. */
export function checkRollupMatchesChain(config: RollupConfig, exec: Pick<ExecNode, 'store'>): void {
  const chainId = exec.store.config().chainId;
  if (chainId !== config.l2ChainId) {
    throw new UsageError(
      `the rollup config is for L2 chain ${config.l2ChainId}, but tern-exec's database holds chain ${chainId}: ` +
        "give tern-exec the datadir initialised from this rollup's L2 genesis",
    );
  }
  const want = config.genesis.l2;
  const have = exec.store.canonicalHash(BigInt(want.number));
  if (have !== undefined && hex(have) !== want.hash.toLowerCase()) {
    throw new UsageError(
      `the rollup config's L2 genesis is block ${want.number} ${want.hash}, but tern-exec holds ${hex(have)} there: ` +
        "give tern-exec the datadir initialised from this rollup's L2 genesis",
    );
  }
}

/** tern-node's engine: tern-exec's Engine API handlers and chain, called directly. */
export function inProcessEngineFactory(
  node: Pick<ReplicaOptions, 'fetchWithdrawalRootFromState'>,
  exec: ExecNode,
): EngineFactory {
  return (config, deps) => {
    checkRollupMatchesChain(config, exec);
    deps.logger.info('Engine in-process: tern-exec runs in this process');
    return new InProcessEngine(
      config,
      { api: exec.engine, store: exec.store },
      { fetchWithdrawalRootFromState: node.fetchWithdrawalRootFromState },
      { logger: deps.logger, metrics: deps.metrics },
    );
  };
}
