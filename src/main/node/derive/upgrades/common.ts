// What every fork's network-upgrade transactions share: the contract bytecode source (the bundled copy of the
// spec's static/bytecode files by default), the deposit shape of an upgrade transaction, and the ERC-1967 proxy
// upgradeTo calldata.
import type { DepositTx } from '../../../primitives/tx/deposit/deposit.js';
import { upgradeDepositSourceHash } from '../../../primitives/tx/deposit/sourceHash.js';
import { criticalError, fromHex } from '../types.js';
import { UPGRADE_BYTECODE } from './bytecodeBundle.js';

/** The deployment bytecodes the upgrades need, by the name of the spec's static/bytecode file. */
export type UpgradeContract = keyof typeof UPGRADE_BYTECODE;

export interface BytecodeSource {
  /** Creation bytecode, or undefined when this source has none. */
  get(name: UpgradeContract): Uint8Array | undefined;
}

/** The bytecode bundled with the program (bytecodeBundle.ts), decoded once per contract. */
export function bundledBytecode(): BytecodeSource {
  const cache = new Map<UpgradeContract, Uint8Array>();
  return {
    get(name) {
      let code = cache.get(name);
      if (code === undefined) {
        const hex: string | undefined = UPGRADE_BYTECODE[name];
        if (hex === undefined) return undefined;
        code = fromHex(hex);
        cache.set(name, code);
      }
      return code;
    },
  };
}

/** Bytecode the upgrade cannot proceed without: a clear critical error naming what is missing. */
export function requireBytecode(src: BytecodeSource, name: UpgradeContract, codeHash: string): Uint8Array {
  const code = src.get(name);
  if (code === undefined) {
    throw criticalError(
      'UPGRADE_BYTECODE_UNAVAILABLE',
      `network upgrade needs the ${name} bytecode (deployed code hash ${codeHash}), which the bytecode source lacks`,
    );
  }
  return code;
}

export const L1_BLOCK_PROXY = '4200000000000000000000000000000000000015';
export const GAS_PRICE_ORACLE_PROXY = '420000000000000000000000000000000000000f';
export const OPERATOR_FEE_VAULT_PROXY = '420000000000000000000000000000000000001b';
export const DEPOSITOR_ACCOUNT = 'deaddeaddeaddeaddeaddeaddeaddeaddead0001';
export const ZERO_ADDRESS = '0000000000000000000000000000000000000000';

/** upgradeTo(address) calldata: selector 0x3659cfe6 and the left-padded implementation address. */
export function upgradeToCalldata(impl: string): Uint8Array {
  return fromHex(`3659cfe6${'0'.repeat(24)}${impl}`);
}

export interface UpgradeTxSpec {
  intent: string;
  from: string;
  to?: string | undefined;
  gasLimit: number;
  data: Uint8Array;
}

/** An upgrade-deposited transaction: no mint, no value, not a system transaction (Regolith rules). */
export function upgradeDeposit(s: UpgradeTxSpec): DepositTx {
  return {
    sourceHash: upgradeDepositSourceHash(s.intent),
    from: fromHex(s.from),
    to: s.to === undefined ? undefined : fromHex(s.to),
    mint: 0n,
    value: 0n,
    gasLimit: BigInt(s.gasLimit),
    isSystemTx: false,
    data: s.data,
  };
}
