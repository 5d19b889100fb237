// Ecotone activation block upgrade transactions (ecotone/derivation.md "Network upgrade automation transactions").
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

/** Deployed code hashes the spec requires of the two deployments. */
export const ECOTONE_L1_BLOCK_CODE_HASH = '0xc88a313aa75dc4fbf0b6850d9f9ae41e04243b7008cf3eadb29256d4a71c1dfd';
export const ECOTONE_GAS_PRICE_ORACLE_CODE_HASH = '0x8b71360ea773b4cfaf1ae6d2bd15464a4e1e2e360f786e475f63aeaed8da0ae5';

/** Where the deployments land: nonce 0 of each deployer. */
export const ECOTONE_L1_BLOCK_ADDRESS = '07dbe8500fc591d1852b76fee44d5a05e13097ff';
export const ECOTONE_GAS_PRICE_ORACLE_ADDRESS = 'b528d11cc114e026f138fe568744c6d45ce6da7a';

/** EIP-4788's own deployment: sender and init code fixed by the EIP. */
export const EIP4788_DEPLOYER = '0b799c86a49deeb90402691f1041aa3af2d3c875';
export const EIP4788_CREATION_CODE =
  '0x60618060095f395ff33373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500';

/** setEcotone() */
const SET_ECOTONE = '22b90ab3';

export function ecotoneUpgradeTxs(code: BytecodeSource): DepositTx[] {
  return [
    upgradeDeposit({
      intent: 'Ecotone: L1 Block Deployment',
      from: '4210000000000000000000000000000000000000',
      gasLimit: 375_000,
      data: requireBytecode(code, 'ecotone-l1-block-deployment', ECOTONE_L1_BLOCK_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Ecotone: Gas Price Oracle Deployment',
      from: '4210000000000000000000000000000000000001',
      gasLimit: 1_000_000,
      data: requireBytecode(code, 'ecotone-gas-price-oracle-deployment', ECOTONE_GAS_PRICE_ORACLE_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Ecotone: L1 Block Proxy Update',
      from: ZERO_ADDRESS,
      to: L1_BLOCK_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(ECOTONE_L1_BLOCK_ADDRESS),
    }),
    upgradeDeposit({
      intent: 'Ecotone: Gas Price Oracle Proxy Update',
      from: ZERO_ADDRESS,
      to: GAS_PRICE_ORACLE_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(ECOTONE_GAS_PRICE_ORACLE_ADDRESS),
    }),
    upgradeDeposit({
      intent: 'Ecotone: Gas Price Oracle Set Ecotone',
      from: DEPOSITOR_ACCOUNT,
      to: GAS_PRICE_ORACLE_PROXY,
      gasLimit: 80_000,
      data: fromHex(SET_ECOTONE),
    }),
    upgradeDeposit({
      intent: 'Ecotone: beacon block roots contract deployment',
      from: EIP4788_DEPLOYER,
      gasLimit: 0x3d090,
      data: fromHex(EIP4788_CREATION_CODE),
    }),
  ];
}
