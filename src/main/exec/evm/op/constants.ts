// Addresses of the OP-Stack predeploys and accounts the execution engine treats specially (specs/protocol/
// predeploys.md, deposits.md).
import { Address } from '@ethereumjs/util';

const addr = (hex: string) => new Address(Uint8Array.from(Buffer.from(hex, 'hex')));

/** L1Block: holds the L1 attributes the L1-cost function reads. */
export const L1_BLOCK_ADDRESS = addr('4200000000000000000000000000000000000015');
/** Receives the base fee (instead of burning it). */
export const BASE_FEE_VAULT_ADDRESS = addr('4200000000000000000000000000000000000019');
/** Receives the L1 data fee. */
export const L1_FEE_VAULT_ADDRESS = addr('420000000000000000000000000000000000001a');
/** Receives the operator fee (Isthmus). */
export const OPERATOR_FEE_VAULT_ADDRESS = addr('420000000000000000000000000000000000001b');
/** The sender of the L1-attributes deposit. */
export const L1_INFO_DEPOSITOR_ADDRESS = addr('deaddeaddeaddeaddeaddeaddeaddeaddead0001');
