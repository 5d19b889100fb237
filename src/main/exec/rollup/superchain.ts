// The superchain-registry chains tern bundles, as tern-exec uses them: the execution chain config op-geth derives
// from a registry chain (params.LoadOPStackChainConfig: every pre-merge fork at 0, Shanghai with Canyon, Cancun
// with Ecotone, Prague with Isthmus, Regolith at genesis) and the genesis block (core.LoadOPStackGenesis). The fork
// times come from the same registry values tern-node bundles (primitives/rollup/networks.ts); the genesis alloc is
// the registry's genesis file, kept gzipped beside this module.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TernError } from '../../common/errors.js';
import { projectRoot } from '../../common/paths.js';
import { type ChainConfig, GENESIS_BLOCK_FORKS, parseChainConfig } from '../../primitives/chainConfig.js';
import { BUNDLED_ROLLUP_NETWORKS, bundledRollupJson } from '../../primitives/rollup/networks.js';
import { type Genesis, parseGenesis } from '../chain/genesis.js';

interface RegistryRollup {
  l2_chain_id: number;
  genesis: { l2: { hash: string; number: number } };
  regolith_time?: number;
  canyon_time?: number;
  ecotone_time?: number;
  fjord_time?: number;
  granite_time?: number;
  holocene_time?: number;
  isthmus_time?: number;
  jovian_time?: number;
  interop_time?: number;
  chain_op_config: { eip1559Elasticity: number; eip1559Denominator: number; eip1559DenominatorCanyon?: number };
}

/** Gzipped registry genesis files (relative to the project root), by network name. */
const GENESIS_FILES: Readonly<Record<string, string>> = {
  'op-sepolia': 'src/main/exec/rollup/networks/op-sepolia-genesis.json.gz',
};

/** Networks whose chain config and genesis tern-exec can set up on its own (--stack-network). */
export const BUNDLED_EXEC_NETWORKS: readonly string[] = BUNDLED_ROLLUP_NETWORKS.filter((n) => GENESIS_FILES[n]);

function registryRollup(name: string): RegistryRollup | undefined {
  return bundledRollupJson(name) as RegistryRollup | undefined;
}

/** op-geth's LoadOPStackChainConfig for a bundled network, in genesis.json `config` form. */
export function superchainConfigJson(name: string): Record<string, unknown> | undefined {
  const r = registryRollup(name);
  if (r === undefined) return undefined;
  const put = (out: Record<string, unknown>, key: string, v: number | undefined) => {
    if (v !== undefined) out[key] = v;
  };
  const out: Record<string, unknown> = { chainId: r.l2_chain_id };
  for (const f of GENESIS_BLOCK_FORKS) out[f] = 0;
  put(out, 'shanghaiTime', r.canyon_time);
  put(out, 'cancunTime', r.ecotone_time);
  put(out, 'pragueTime', r.isthmus_time);
  out.bedrockBlock = 0;
  out.regolithTime = 0;
  put(out, 'canyonTime', r.canyon_time);
  put(out, 'ecotoneTime', r.ecotone_time);
  put(out, 'fjordTime', r.fjord_time);
  put(out, 'graniteTime', r.granite_time);
  put(out, 'holoceneTime', r.holocene_time);
  put(out, 'isthmusTime', r.isthmus_time);
  put(out, 'jovianTime', r.jovian_time);
  put(out, 'interopTime', r.interop_time);
  out.terminalTotalDifficulty = 0;
  out.terminalTotalDifficultyPassed = true;
  out.optimism = { ...r.chain_op_config };
  return out;
}

/** The bundled registry config of a chain id, for --rollup.superchain-upgrades; undefined for other chains. */
export function superchainConfigForChainId(chainId: bigint): ChainConfig | undefined {
  for (const name of BUNDLED_ROLLUP_NETWORKS) {
    const r = registryRollup(name);
    if (r !== undefined && BigInt(r.l2_chain_id) === chainId) {
      const json = superchainConfigJson(name);
      return json && parseChainConfig(json);
    }
  }
  return undefined;
}

/** The genesis block hash the registry records for a bundled network. */
export function registryGenesisHash(name: string): string | undefined {
  return registryRollup(name)?.genesis.l2.hash;
}

/** op-geth's LoadOPStackGenesis: the bundled network's genesis with its registry chain config. */
export function loadNetworkGenesis(name: string): Genesis {
  const file = GENESIS_FILES[name];
  const json = superchainConfigJson(name);
  if (file === undefined || json === undefined) {
    throw new TernError('NETWORK_NOT_BUNDLED', `network ${JSON.stringify(name)} is not bundled with tern-exec`);
  }
  const doc = JSON.parse(gunzipSync(readFileSync(join(projectRoot(), file))).toString('utf8')) as Record<
    string,
    unknown
  >;
  return parseGenesis(doc, { config: parseChainConfig(json) });
}
