// Rollup configs tern bundles for --network. Values are copied from the superchain registry (OP Sepolia's chain TOML
// and the Sepolia superchain TOML), turned into rollup.json form the way op-node's chaincfg does it: Regolith at
// genesis, channel_timeout 300, protocol versions address from the superchain. A test checks them against the
// registry files.
import { TernError } from '../errors.js';
import { parseRollupConfig, type RollupConfig } from './config.js';

const OP_SEPOLIA = {
  genesis: {
    l1: { hash: '0x48f520cf4ddaf34c8336e6e490632ea3cf1e5e93b0b2bc6e917557e31845371b', number: 4071408 },
    l2: { hash: '0x102de6ffb001480cc9b8b548fd05c34cd4f46ae4aa91759393db90ea0409887d', number: 0 },
    l2_time: 1691802540,
    system_config: {
      batcherAddr: '0x8f23bb38f531600e5d8fddaaec41f13fab46e98c',
      overhead: '0x00000000000000000000000000000000000000000000000000000000000000bc',
      scalar: '0x00000000000000000000000000000000000000000000000000000000000a6fe0',
      gasLimit: 30000000,
    },
  },
  block_time: 2,
  max_sequencer_drift: 600,
  seq_window_size: 3600,
  channel_timeout: 300,
  l1_chain_id: 11155111,
  l2_chain_id: 11155420,
  regolith_time: 0,
  canyon_time: 1699981200,
  delta_time: 1703203200,
  ecotone_time: 1708534800,
  fjord_time: 1716998400,
  granite_time: 1723478400,
  holocene_time: 1732633200,
  pectra_blob_schedule_time: 1742486400,
  isthmus_time: 1744905600,
  batch_inbox_address: '0xff00000000000000000000000000000011155420',
  deposit_contract_address: '0x16fc5058f25648194471939df75cf27a2fdc48bc',
  l1_system_config_address: '0x034edd2a225f7f429a63e0f1d2084b9e0a93b538',
  protocol_versions_address: '0x79add5713b383daa0a138d3c4780c7a1804a8090',
  superchain_config_address: '0xc2be75506d5724086deb7245bd260cc9753911be',
  chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
} as const;

const BUNDLED: Readonly<Record<string, unknown>> = { 'op-sepolia': OP_SEPOLIA };

/** Names loadNetworkRollupConfig accepts. */
export const BUNDLED_ROLLUP_NETWORKS: readonly string[] = Object.keys(BUNDLED);

/** The rollup.json form of a bundled network, as op-node would write it. */
export function bundledRollupJson(name: string): unknown {
  return BUNDLED[name];
}

/** The rollup config of a bundled network; any other name is a clear usage error. */
export function loadNetworkRollupConfig(name: string): RollupConfig {
  const json = BUNDLED[name];
  if (json === undefined) {
    throw new TernError(
      'ROLLUP_CONFIG',
      `network ${JSON.stringify(name)} is not bundled with tern (bundled: ${BUNDLED_ROLLUP_NETWORKS.join(', ')}); ` +
        'pass its rollup.json with --rollup.config instead',
      { severity: 'critical' },
    );
  }
  return parseRollupConfig(json);
}
