// tern-exec flags, section 2.8 of the seed: Gas price oracle.
import type { FlagSpec } from '../flag.js';
import { GPO } from './shared.js';

export const GPO_FLAGS: readonly FlagSpec[] = [
  {
    name: 'gpo.blocks',
    kind: 'uint',
    default: 20,
    help: 'Number of recent blocks to check for gas prices',
    category: GPO,
    toml: 'Eth.GPO.Blocks',
    implemented: true,
  },
  {
    name: 'gpo.ignoreprice',
    kind: 'uint',
    default: 2,
    help: 'Gas price below which the oracle ignores transactions',
    category: GPO,
    toml: 'Eth.GPO.IgnorePrice',
    implemented: true,
  },
  {
    name: 'gpo.maxprice',
    kind: 'uint',
    default: 500000000000,
    help: 'Maximum priority fee (gas price before London) the oracle recommends',
    category: GPO,
    toml: 'Eth.GPO.MaxPrice',
    implemented: true,
  },
  {
    name: 'gpo.minsuggestedpriorityfee',
    kind: 'uint',
    default: 1000000,
    help: 'Minimum priority fee suggested; used on rollup chains when blocks are not full',
    category: GPO,
    toml: 'Eth.GPO.MinSuggestedPriorityFee',
    implemented: true,
  },
  {
    name: 'gpo.percentile',
    kind: 'uint',
    max: 100,
    default: 60,
    help: 'Suggested gas price is this percentile of recent transaction gas prices',
    category: GPO,
    toml: 'Eth.GPO.Percentile',
    implemented: true,
  },
];
