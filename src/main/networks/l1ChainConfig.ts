// The L1 fork schedules tern knows without a file: the public L1s' (networks/l1.ts), and the choice between them
// and an operator's --rollup.l1-chain-config file.
import { TernError } from '../common/errors.js';
import type { RollupConfig } from '../primitives/rollup/config.js';
import { failL1ChainConfig, type L1ChainConfig, parseL1ChainConfig } from '../primitives/rollup/l1ChainConfig.js';
import { L1_PRESETS } from './l1.js';

let known: Map<bigint, L1ChainConfig> | undefined;
/** The built-in schedule of a public L1 (geth v1.16's mainnet, Sepolia, Holesky and Hoodi), or undefined. */
export function knownL1ChainConfig(chainId: bigint): L1ChainConfig | undefined {
  known ??= new Map(
    Object.values(L1_PRESETS).map((p): [bigint, L1ChainConfig] => [p.chainId, parseL1ChainConfig(p.config)]),
  );
  return known.get(chainId);
}

/**
 * Picks the L1 schedule: built in for the public L1s (a given file is ignored), else the parsed file, whose
 * chain id must match the rollup's l1_chain_id.
 */
export function resolveL1ChainConfig(rollup: RollupConfig, fileJson?: unknown): L1ChainConfig {
  const known = knownL1ChainConfig(rollup.l1ChainId);
  if (known) return known;
  if (fileJson === undefined) {
    throw new TernError(
      'L1_CHAIN_CONFIG',
      `L1 chain ${rollup.l1ChainId} is not a well-known chain: pass its chain config with --rollup.l1-chain-config`,
      { severity: 'critical' },
    );
  }
  const cfg = parseL1ChainConfig(fileJson);
  if (cfg.chainId !== rollup.l1ChainId) {
    failL1ChainConfig(`chainId ${cfg.chainId} does not match the rollup config's l1_chain_id ${rollup.l1ChainId}`);
  }
  return cfg;
}
