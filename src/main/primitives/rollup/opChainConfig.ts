// The execution chain config of an OP chain from its rollup config: op-geth's LoadOPStackChainConfig, the one
// builder tern uses for it (tern-exec --stack-network and --rollup.superchain-upgrades, and stateless execution,
// where the rollup config is the whole source of truth as in op-program and kona). Every block fork through London
// and the merge is active from genesis; the Ethereum time forks follow the OP upgrades that carry them (Canyon:
// Shanghai, Ecotone: Cancun, Isthmus: Prague); EIP-1559 parameters come from chain_op_config. OP Mainnet keeps its
// pre-Bedrock history (Berlin at its legacy block, London and the merge with Bedrock), as op-geth special-cases it.
import { type ChainConfig, GENESIS_BLOCK_FORKS, parseChainConfig } from '../chainConfig.js';
import type { OpUpgrade } from '../op/forks.js';
import type { RollupConfig } from './config.js';

/**
 * op-geth's defaults (params.OptimismConfig of OP Mainnet and the superchain): used when a rollup config predates
 * chain_op_config.
 */
const DEFAULT_OP_EIP1559 = { eip1559Elasticity: 6n, eip1559Denominator: 50n, eip1559DenominatorCanyon: 250n };

/** OP upgrade → the chain config's time fields it sets. */
const TIME_FIELDS: Record<OpUpgrade, readonly string[]> = {
  regolith: ['regolithTime'],
  canyon: ['canyonTime', 'shanghaiTime'],
  delta: [],
  ecotone: ['ecotoneTime', 'cancunTime'],
  fjord: ['fjordTime'],
  granite: ['graniteTime'],
  holocene: ['holoceneTime'],
  isthmus: ['isthmusTime', 'pragueTime'],
  jovian: ['jovianTime'],
  interop: ['interopTime'],
};

const OP_MAINNET_CHAIN_ID = 10n;
/** OP Mainnet's legacy (pre-Bedrock) Berlin block; London and the merge came with Bedrock. */
const OP_MAINNET_BERLIN_BLOCK = 3950000;
const OP_MAINNET_BEDROCK_FORKS = ['londonBlock', 'arrowGlacierBlock', 'grayGlacierBlock', 'mergeNetsplitBlock'];

/** The chain config in genesis.json `config` form (what the database stores). */
export function opChainConfigJson(rc: RollupConfig): Record<string, unknown> {
  const op = rc.chainOpConfig ?? DEFAULT_OP_EIP1559;
  const json: Record<string, unknown> = { chainId: rc.l2ChainId.toString() };
  for (const f of GENESIS_BLOCK_FORKS) json[f] = 0;
  json.bedrockBlock = rc.genesis.l2.number;
  if (rc.l2ChainId === OP_MAINNET_CHAIN_ID) {
    json.berlinBlock = OP_MAINNET_BERLIN_BLOCK;
    for (const f of OP_MAINNET_BEDROCK_FORKS) json[f] = rc.genesis.l2.number;
  }
  for (const [fork, fields] of Object.entries(TIME_FIELDS) as [OpUpgrade, readonly string[]][]) {
    const at = rc.forks[fork];
    if (at === undefined) continue;
    for (const field of fields) json[field] = at;
  }
  json.terminalTotalDifficulty = 0;
  json.terminalTotalDifficultyPassed = true;
  json.optimism = {
    eip1559Elasticity: op.eip1559Elasticity.toString(),
    eip1559Denominator: op.eip1559Denominator.toString(),
    ...(op.eip1559DenominatorCanyon !== undefined
      ? { eip1559DenominatorCanyon: op.eip1559DenominatorCanyon.toString() }
      : {}),
  };
  return json;
}

export function chainConfigFromRollup(rc: RollupConfig): ChainConfig {
  return parseChainConfig(opChainConfigJson(rc));
}
