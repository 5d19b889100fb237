// tern-exec flags, section 2.8 of the seed: Gas price oracle.

import { gasPriceOracleDefaults } from '../../exec/rpc/gasPrice.js';
import type { FlagSpec } from '../flag.js';
import { GPO } from './shared.js';

export const GPO_FLAGS: readonly FlagSpec[] = [
  {
    name: 'gpo.blocks',
    kind: 'uint',
    default: gasPriceOracleDefaults.blocks,
    help: 'Number of recent blocks to check for gas prices',
    category: GPO,
    toml: 'Eth.GPO.Blocks',
    implemented: true,
  },
  {
    name: 'gpo.ignoreprice',
    kind: 'uint',
    default: Number(gasPriceOracleDefaults.ignorePrice),
    help: 'Gas price below which the oracle ignores transactions',
    category: GPO,
    toml: 'Eth.GPO.IgnorePrice',
    implemented: true,
  },
  {
    name: 'gpo.maxprice',
    kind: 'uint',
    default: Number(gasPriceOracleDefaults.maxPrice),
    help: 'Maximum priority fee (gas price before London) the oracle recommends',
    category: GPO,
    toml: 'Eth.GPO.MaxPrice',
    implemented: true,
  },
  {
    name: 'gpo.minsuggestedpriorityfee',
    kind: 'uint',
    default: Number(gasPriceOracleDefaults.minSuggestedPriorityFee),
    help: 'Minimum priority fee suggested; used on rollup chains when blocks are not full',
    category: GPO,
    toml: 'Eth.GPO.MinSuggestedPriorityFee',
    implemented: true,
  },
  {
    name: 'gpo.percentile',
    kind: 'uint',
    max: 100,
    default: gasPriceOracleDefaults.percentile,
    help: 'Suggested gas price is this percentile of recent transaction gas prices',
    category: GPO,
    toml: 'Eth.GPO.Percentile',
    implemented: true,
  },
];
