// tern-exec flags, section 2.6 of the seed: Development chain.
import type { FlagSpec } from '../flag.js';
import { DEV } from './shared.js';

export const DEV_FLAGS: readonly FlagSpec[] = [
  {
    name: 'dev',
    kind: 'bool',
    default: false,
    help: 'Ephemeral proof-of-authority network with a pre-funded developer account and mining enabled',
    category: DEV,
    toml: 'Dev.Enabled',
    implemented: true,
  },
  {
    name: 'dev.gaslimit',
    kind: 'uint',
    default: 11500000,
    help: 'Initial block gas limit of the development chain',
    category: DEV,
    toml: 'Dev.GasLimit',
    implemented: true,
  },
  {
    name: 'dev.period',
    kind: 'uint',
    default: 0,
    help: 'Block period of the development chain (0 = mine only when a transaction is pending)',
    category: DEV,
    toml: 'Dev.Period',
    implemented: true,
  },
  {
    name: 'dev.beacon.addr',
    kind: 'host',
    default: 'localhost',
    help: "Listening address of the development chain's beacon API (genesis, spec, blob sidecars and blobs of its blocks)",
    category: DEV,
    toml: 'Tern.DevBeaconAddr',
    implemented: true,
  },
  {
    name: 'dev.beacon.port',
    kind: 'port',
    default: 5052,
    help: "Listening port of the development chain's beacon API (0 picks a free port; the URL is logged)",
    category: DEV,
    toml: 'Tern.DevBeaconPort',
    implemented: true,
  },
];
