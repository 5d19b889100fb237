// Which OP-Stack upgrades are active for a block: decided once per block from the chain config and the block's
// timestamp (every OP upgrade after Bedrock activates by L2 timestamp). Undefined for non-OP chains.
import { type ChainConfig, isBlockForkActive, isTimeForkActive } from '../../../primitives/chainConfig.js';
import type { OpFork } from '../../../primitives/op/forks.js';

export interface OpForks {
  readonly bedrock: boolean;
  readonly regolith: boolean;
  readonly canyon: boolean;
  readonly ecotone: boolean;
  readonly fjord: boolean;
  readonly granite: boolean;
  readonly holocene: boolean;
  readonly isthmus: boolean;
  readonly jovian: boolean;
}

/** The OP upgrades active at (number, timestamp), or undefined when the chain is not an OP chain. */
export function opForksAt(config: ChainConfig, number: bigint, timestamp: bigint): OpForks | undefined {
  if (config.optimism === undefined) return undefined;
  const t = (f: Parameters<typeof isTimeForkActive>[1]) => isTimeForkActive(config, f, timestamp);
  return {
    // A config without bedrockBlock is Bedrock from genesis (op-geth: a nil BedrockBlock means not Bedrock, but
    // every OP genesis tern reads sets it; an OP config without it is treated as Bedrock from block 0).
    bedrock: config.blocks.bedrockBlock === undefined || isBlockForkActive(config, 'bedrockBlock', number),
    regolith: t('regolithTime'),
    canyon: t('canyonTime'),
    ecotone: t('ecotoneTime'),
    fjord: t('fjordTime'),
    granite: t('graniteTime'),
    holocene: t('holoceneTime'),
    isthmus: t('isthmusTime'),
    jovian: t('jovianTime'),
  };
}

/** The newest active OP upgrade, by the primitives' names (Delta has no execution changes: Canyon stands for it). */
export function latestOpFork(forks: OpForks): OpFork {
  if (forks.jovian) return 'jovian';
  if (forks.isthmus) return 'isthmus';
  if (forks.holocene) return 'holocene';
  if (forks.granite) return 'granite';
  if (forks.fjord) return 'fjord';
  if (forks.ecotone) return 'ecotone';
  if (forks.canyon) return 'canyon';
  if (forks.regolith) return 'regolith';
  return 'bedrock';
}
