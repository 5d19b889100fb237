// The execution chain config of an OP chain from its rollup config alone (what op-program and kona do: the
// rollup config is the whole source of truth for a stateless run). Every block fork through London and the merge
// is active from genesis, as in every OP Stack genesis; the Ethereum time forks follow the OP upgrades that carry
// them (Canyon: Shanghai, Ecotone: Cancun, Isthmus: Prague); EIP-1559 parameters come from chain_op_config.
import { type ChainConfig, GENESIS_BLOCK_FORKS, parseChainConfig } from '../../primitives/chainConfig.js';
import type { OpUpgrade } from '../../primitives/op/forks.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';

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

export function chainConfigFromRollup(rc: RollupConfig): ChainConfig {
  const op = rc.chainOpConfig ?? DEFAULT_OP_EIP1559;
  const json: Record<string, unknown> = {
    chainId: rc.l2ChainId.toString(),
    terminalTotalDifficulty: 0,
    bedrockBlock: rc.genesis.l2.number,
    optimism: {
      eip1559Elasticity: op.eip1559Elasticity.toString(),
      eip1559Denominator: op.eip1559Denominator.toString(),
      ...(op.eip1559DenominatorCanyon !== undefined
        ? { eip1559DenominatorCanyon: op.eip1559DenominatorCanyon.toString() }
        : {}),
    },
  };
  for (const f of GENESIS_BLOCK_FORKS) json[f] = 0;
  for (const [fork, fields] of Object.entries(TIME_FIELDS) as [OpUpgrade, readonly string[]][]) {
    const at = rc.forks[fork];
    if (at === undefined) continue;
    for (const field of fields) json[field] = at;
  }
  return parseChainConfig(json);
}
