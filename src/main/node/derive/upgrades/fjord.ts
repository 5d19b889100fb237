// Fjord activation block upgrade transactions (fjord/derivation.md "Network upgrade automation transactions").
import type { DepositTx } from '../../../primitives/tx/deposit/deposit.js';
import { fromHex } from '../types.js';
import {
  type BytecodeSource,
  DEPOSITOR_ACCOUNT,
  GAS_PRICE_ORACLE_PROXY,
  requireBytecode,
  upgradeDeposit,
  upgradeToCalldata,
  ZERO_ADDRESS,
} from './common.js';

export const FJORD_GAS_PRICE_ORACLE_CODE_HASH = '0xa88fa50a2745b15e6794247614b5298483070661adacb8d32d716434ed24c6b2';
export const FJORD_GAS_PRICE_ORACLE_ADDRESS = 'a919894851548179a0750865e7974da599c0fac7';

/** setFjord() */
const SET_FJORD = '8e98b106';

export function fjordUpgradeTxs(code: BytecodeSource): DepositTx[] {
  return [
    upgradeDeposit({
      intent: 'Fjord: Gas Price Oracle Deployment',
      from: '4210000000000000000000000000000000000002',
      gasLimit: 1_450_000,
      data: requireBytecode(code, 'fjord-gas-price-oracle-deployment', FJORD_GAS_PRICE_ORACLE_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Fjord: Gas Price Oracle Proxy Update',
      from: ZERO_ADDRESS,
      to: GAS_PRICE_ORACLE_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(FJORD_GAS_PRICE_ORACLE_ADDRESS),
    }),
    upgradeDeposit({
      intent: 'Fjord: Gas Price Oracle Set Fjord',
      from: DEPOSITOR_ACCOUNT,
      to: GAS_PRICE_ORACLE_PROXY,
      gasLimit: 90_000,
      data: fromHex(SET_FJORD),
    }),
  ];
}
