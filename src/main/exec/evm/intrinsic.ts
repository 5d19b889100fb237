// Intrinsic gas: what a transaction costs before its first opcode (yellow paper g0 and its amendments: EIP-2
// creation, EIP-2028 calldata, EIP-2930 access lists, EIP-3860 init code words, EIP-7702 authorizations), and
// EIP-7623's calldata floor. Same rules and order as geth's core.IntrinsicGas / FloorDataGas.
import type { ForkRules } from './env.js';

export const TX_GAS = 21_000n;
export const TX_GAS_CONTRACT_CREATION = 53_000n;
export const TX_DATA_ZERO_GAS = 4n;
export const TX_DATA_NON_ZERO_GAS_FRONTIER = 68n;
export const TX_DATA_NON_ZERO_GAS_EIP2028 = 16n;
export const INIT_CODE_WORD_GAS = 2n;
export const TX_ACCESS_LIST_ADDRESS_GAS = 2_400n;
export const TX_ACCESS_LIST_STORAGE_KEY_GAS = 1_900n;
/** EIP-7702 PER_EMPTY_ACCOUNT_COST, charged per authorization (part refunded when the authority exists). */
export const TX_AUTH_EMPTY_ACCOUNT_GAS = 25_000n;
/** EIP-7702 PER_AUTH_BASE_COST. */
export const TX_AUTH_TUPLE_GAS = 12_500n;
/** EIP-7623 */
export const TX_COST_FLOOR_PER_TOKEN = 10n;
export const TX_TOKENS_PER_NON_ZERO_BYTE = 4n;
/** EIP-3860 MAX_INITCODE_SIZE */
export const MAX_INITCODE_SIZE = 49_152;
/** EIP-7825 transaction gas limit cap (Osaka). */
export const MAX_TX_GAS = 1n << 24n;

/** What intrinsic gas depends on. The access list is in @ethereumjs/tx's bytes form: [address, slots[]][]. */
export interface IntrinsicGasInput {
  readonly data: Uint8Array;
  readonly isCreate: boolean;
  readonly accessList?: readonly (readonly [Uint8Array, readonly Uint8Array[]])[] | undefined;
  readonly authorizationCount?: number;
}

/** Number of zero bytes in the data. */
export function countZeroBytes(data: Uint8Array): number {
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  return zeros;
}

/** EIP-3860 words of init code: ceil(len / 32). */
export function initCodeWords(length: number): bigint {
  return BigInt(Math.ceil(length / 32));
}

/** Intrinsic gas of a transaction under these rules. */
export function intrinsicGas(tx: IntrinsicGasInput, rules: ForkRules): bigint {
  let gas = tx.isCreate && rules.homestead ? TX_GAS_CONTRACT_CREATION : TX_GAS;
  const len = tx.data.length;
  if (len > 0) {
    const zeros = countZeroBytes(tx.data);
    const nonZeroGas = rules.istanbul ? TX_DATA_NON_ZERO_GAS_EIP2028 : TX_DATA_NON_ZERO_GAS_FRONTIER;
    gas += BigInt(len - zeros) * nonZeroGas + BigInt(zeros) * TX_DATA_ZERO_GAS;
    if (tx.isCreate && rules.shanghai) gas += initCodeWords(len) * INIT_CODE_WORD_GAS;
  }
  const accessList = tx.accessList;
  if (accessList !== undefined && accessList.length > 0) {
    let keys = 0;
    for (let i = 0; i < accessList.length; i++)
      keys += (accessList[i] as readonly [Uint8Array, Uint8Array[]])[1].length;
    gas += BigInt(accessList.length) * TX_ACCESS_LIST_ADDRESS_GAS + BigInt(keys) * TX_ACCESS_LIST_STORAGE_KEY_GAS;
  }
  if (tx.authorizationCount !== undefined && tx.authorizationCount > 0) {
    gas += BigInt(tx.authorizationCount) * TX_AUTH_EMPTY_ACCOUNT_GAS;
  }
  return gas;
}

/** EIP-7623 floor: 21000 + 10 per token, a token being a zero byte or a quarter of a nonzero byte. */
export function floorDataGas(data: Uint8Array): bigint {
  const zeros = countZeroBytes(data);
  const tokens = BigInt(data.length - zeros) * TX_TOKENS_PER_NON_ZERO_BYTE + BigInt(zeros);
  return TX_GAS + tokens * TX_COST_FLOOR_PER_TOKEN;
}
