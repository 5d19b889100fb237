// Jovian activation block upgrade transactions (jovian/derivation.md "Network Upgrade Transactions"). Like
// Isthmus, the deployments need bytecode no registry package holds (see common.ts).
import type { DepositTx } from '../../../primitives/tx/deposit/deposit.js';
import { fromHex } from '../types.js';
import {
  type BytecodeSource,
  DEPOSITOR_ACCOUNT,
  GAS_PRICE_ORACLE_PROXY,
  L1_BLOCK_PROXY,
  requireBytecode,
  upgradeDeposit,
  upgradeToCalldata,
  ZERO_ADDRESS,
} from './common.js';

export const JOVIAN_L1_BLOCK_CODE_HASH = '0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1';
export const JOVIAN_GAS_PRICE_ORACLE_CODE_HASH = '0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614';

export const JOVIAN_L1_BLOCK_ADDRESS = '3ba4007f5c922fbb33c454b41ea7a1f11e83df2c';
export const JOVIAN_GAS_PRICE_ORACLE_ADDRESS = '4f1db3c6abd250ba86e0928471a8f7db3afd88f1';

/** setJovian() */
const SET_JOVIAN = 'b3d72079';

export function jovianUpgradeTxs(code: BytecodeSource): DepositTx[] {
  return [
    upgradeDeposit({
      intent: 'Jovian: L1Block Deployment',
      from: '4210000000000000000000000000000000000006',
      gasLimit: 447_315,
      data: requireBytecode(code, 'jovian-l1-block-deployment', JOVIAN_L1_BLOCK_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Jovian: L1Block Proxy Update',
      from: ZERO_ADDRESS,
      to: L1_BLOCK_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(JOVIAN_L1_BLOCK_ADDRESS),
    }),
    upgradeDeposit({
      intent: 'Jovian: GasPriceOracle Deployment',
      from: '4210000000000000000000000000000000000007',
      gasLimit: 1_750_714,
      data: requireBytecode(code, 'jovian-gas-price-oracle-deployment', JOVIAN_GAS_PRICE_ORACLE_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Jovian: GasPriceOracle Proxy Update',
      from: ZERO_ADDRESS,
      to: GAS_PRICE_ORACLE_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(JOVIAN_GAS_PRICE_ORACLE_ADDRESS),
    }),
    upgradeDeposit({
      intent: 'Jovian: Gas Price Oracle Set Jovian',
      from: DEPOSITOR_ACCOUNT,
      to: GAS_PRICE_ORACLE_PROXY,
      gasLimit: 90_000,
      data: fromHex(SET_JOVIAN),
    }),
  ];
}
