// The predefined networks `--network` accepts (op-node's chaincfg.AvailableNetworks()), and the ones tern bundles.
//
// op-node names each chain of the superchain registry `<chain>-<superchain>`, where <chain> is the config file's
// base name and <superchain> its folder (so `superchain/configs/mainnet/op.toml` is `op-mainnet`). The 60 names
// below are the `superchain/configs/<superchain>/<chain>.toml` files of ethereum-optimism/superchain-registry at
// commit cf79287da3bf176509f740786cafca06106eb72e (2025-07-17); the same set holds from 5895b910 (2025-06-05,
// "superchain: remove celo mainnet") until 212c6090 (2025-07-21, celo-mainnet added back). That is the only window
// of the registry's history with exactly 60 chains that include two devnet-style (`sepolia-dev-0`) and two
// rehearsal-style (`rehearsal-0-bn`) identifiers, as the seed describes. (Registry versions contemporary with the
// v1.10.2 release itself, December 2024, held only about 40 chains and no rehearsal superchain.) Odd-looking names
// such as `settlus-mainnet-mainnet` and `radius_testnet-sepolia` are what op-node really accepts.

/** Every network name `--network` accepts, sorted. */
export const NETWORK_NAMES: readonly string[] = [
  'arena-z-mainnet',
  'automata-mainnet',
  'base-devnet-0-sepolia-dev-0',
  'base-mainnet',
  'base-sepolia',
  'bob-mainnet',
  'boba-mainnet',
  'boba-sepolia',
  'camp-sepolia',
  'creator-chain-testnet-sepolia',
  'cyber-mainnet',
  'cyber-sepolia',
  'ethernity-mainnet',
  'ethernity-sepolia',
  'fraxtal-mainnet',
  'funki-mainnet',
  'funki-sepolia',
  'hashkeychain-mainnet',
  'ink-mainnet',
  'ink-sepolia',
  'lisk-mainnet',
  'lisk-sepolia',
  'lyra-mainnet',
  'metal-mainnet',
  'metal-sepolia',
  'mint-mainnet',
  'mode-mainnet',
  'mode-sepolia',
  'op-mainnet',
  'op-sepolia',
  'oplabs-devnet-0-sepolia-dev-0',
  'orderly-mainnet',
  'ozean-sepolia',
  'pivotal-sepolia',
  'polynomial-mainnet',
  'race-mainnet',
  'race-sepolia',
  'radius_testnet-sepolia',
  'redstone-mainnet',
  'rehearsal-0-bn-0-rehearsal-0-bn',
  'rehearsal-0-bn-1-rehearsal-0-bn',
  'settlus-mainnet-mainnet',
  'settlus-sepolia-sepolia',
  'shape-mainnet',
  'shape-sepolia',
  'snax-mainnet',
  'soneium-mainnet',
  'soneium-minato-sepolia',
  'sseed-mainnet',
  'swan-mainnet',
  'swell-mainnet',
  'tbn-mainnet',
  'tbn-sepolia',
  'unichain-mainnet',
  'unichain-sepolia',
  'worldchain-mainnet',
  'worldchain-sepolia',
  'xterio-eth-mainnet',
  'zora-mainnet',
  'zora-sepolia',
];

/**
 * Networks whose rollup and genesis configuration tern ships. Any other name of NETWORK_NAMES is accepted by the
 * flag parser but makes the program stop with a clear "network not bundled; use --rollup.config" message.
 */
export const BUNDLED_NETWORKS: readonly string[] = ['op-sepolia'];
