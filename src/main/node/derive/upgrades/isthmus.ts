// Isthmus activation block upgrade transactions (isthmus/derivation.md "Network upgrade automation transactions").
// The three contract deployments need bytecode no registry package holds: without a bytecode source for them,
// building the activation block fails with UPGRADE_BYTECODE_UNAVAILABLE.
import type { DepositTx } from '../../../primitives/tx/deposit/deposit.js';
import { fromHex } from '../types.js';
import {
  type BytecodeSource,
  DEPOSITOR_ACCOUNT,
  GAS_PRICE_ORACLE_PROXY,
  L1_BLOCK_PROXY,
  OPERATOR_FEE_VAULT_PROXY,
  requireBytecode,
  upgradeDeposit,
  upgradeToCalldata,
  ZERO_ADDRESS,
} from './common.js';

export const ISTHMUS_L1_BLOCK_CODE_HASH = '0x8e3fe7a416d3e5f3b7be74ddd4e7e58e516fa3f80b67c6d930e3cd7297da4a4b';
export const ISTHMUS_GAS_PRICE_ORACLE_CODE_HASH = '0x4d195a9d7caf9fb6d4beaf80de252c626c853afd5868c4f4f8d19c9d301c2679';
export const ISTHMUS_OPERATOR_FEE_VAULT_CODE_HASH =
  '0x57dc55c9c09ca456fa728f253fe7b895d3e6aae0706104935fe87c7721001971';
export const EIP2935_CODE_HASH = '0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d';

export const ISTHMUS_L1_BLOCK_ADDRESS = 'ff256497d61dcd71a9e9ff43967c13fde1f72d12';
export const ISTHMUS_GAS_PRICE_ORACLE_ADDRESS = '93e57a196454cb919193fa9946f14943cf733845';
export const ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS = '4fa2be8cd41504037f1838bce3bcc93bc68ff537';

/** EIP-2935's own deployment: sender and init code fixed by the EIP. */
export const EIP2935_DEPLOYER = '3462413af4609098e1e27a490f554f260213d685';
export const EIP2935_CREATION_CODE =
  '0x60538060095f395ff33373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500';

/** setIsthmus() */
const SET_ISTHMUS = '291b0383';

export function isthmusUpgradeTxs(code: BytecodeSource): DepositTx[] {
  return [
    upgradeDeposit({
      intent: 'Isthmus: L1 Block Deployment',
      from: '4210000000000000000000000000000000000003',
      gasLimit: 425_000,
      data: requireBytecode(code, 'isthmus-l1-block-deployment', ISTHMUS_L1_BLOCK_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Isthmus: Gas Price Oracle Deployment',
      from: '4210000000000000000000000000000000000004',
      gasLimit: 1_625_000,
      data: requireBytecode(code, 'isthmus-gas-price-oracle-deployment', ISTHMUS_GAS_PRICE_ORACLE_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Isthmus: Operator Fee Vault Deployment',
      from: '4210000000000000000000000000000000000005',
      gasLimit: 500_000,
      data: requireBytecode(code, 'isthmus-operator-fee-deployment', ISTHMUS_OPERATOR_FEE_VAULT_CODE_HASH),
    }),
    upgradeDeposit({
      intent: 'Isthmus: L1 Block Proxy Update',
      from: ZERO_ADDRESS,
      to: L1_BLOCK_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(ISTHMUS_L1_BLOCK_ADDRESS),
    }),
    upgradeDeposit({
      intent: 'Isthmus: Gas Price Oracle Proxy Update',
      from: ZERO_ADDRESS,
      to: GAS_PRICE_ORACLE_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(ISTHMUS_GAS_PRICE_ORACLE_ADDRESS),
    }),
    upgradeDeposit({
      intent: 'Isthmus: Operator Fee Vault Proxy Update',
      from: ZERO_ADDRESS,
      to: OPERATOR_FEE_VAULT_PROXY,
      gasLimit: 50_000,
      data: upgradeToCalldata(ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS),
    }),
    upgradeDeposit({
      intent: 'Isthmus: Gas Price Oracle Set Isthmus',
      from: DEPOSITOR_ACCOUNT,
      to: GAS_PRICE_ORACLE_PROXY,
      gasLimit: 90_000,
      data: fromHex(SET_ISTHMUS),
    }),
    upgradeDeposit({
      intent: 'Isthmus: EIP-2935 Contract Deployment',
      from: EIP2935_DEPLOYER,
      gasLimit: 250_000,
      data: fromHex(EIP2935_CREATION_CODE),
    }),
  ];
}
