// What every fork's network-upgrade transactions share: the contract bytecode source (registry packages where one
// holds the exact bytes the spec pins, an operator-supplied directory otherwise), the deposit shape of an
// upgrade transaction, and the ERC-1967 proxy upgradeTo calldata.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DepositTx } from '../../../primitives/tx/deposit/deposit.js';
import { upgradeDepositSourceHash } from '../../../primitives/tx/deposit/sourceHash.js';
import { criticalError, fromHex } from '../types.js';

/** The deployment bytecodes the upgrades need, by the name of the spec's static/bytecode file. */
export type UpgradeContract =
  | 'ecotone-l1-block-deployment'
  | 'ecotone-gas-price-oracle-deployment'
  | 'fjord-gas-price-oracle-deployment'
  | 'isthmus-l1-block-deployment'
  | 'isthmus-gas-price-oracle-deployment'
  | 'isthmus-operator-fee-deployment'
  | 'jovian-l1-block-deployment'
  | 'jovian-gas-price-oracle-deployment';

export interface BytecodeSource {
  /** Creation bytecode, or undefined when this source has none. */
  get(name: UpgradeContract): Uint8Array | undefined;
}

// Verified byte for byte against the spec's static/bytecode files: contracts-bedrock 0.17.1 holds the Ecotone
// L1Block and GasPriceOracle, 0.17.3 the Fjord GasPriceOracle. No registry package holds the later ones.
const PACKAGED: Partial<Record<UpgradeContract, string>> = {
  'ecotone-l1-block-deployment': 'contracts-bedrock-0171/forge-artifacts/L1Block.sol/L1Block.json',
  'ecotone-gas-price-oracle-deployment':
    'contracts-bedrock-0171/forge-artifacts/GasPriceOracle.sol/GasPriceOracle.json',
  'fjord-gas-price-oracle-deployment': 'contracts-bedrock-0173/forge-artifacts/GasPriceOracle.sol/GasPriceOracle.json',
};

/** Reads forge artifacts from the aliased contracts-bedrock packages (lazily, once each). */
export function packagedBytecode(): BytecodeSource {
  const cache = new Map<UpgradeContract, Uint8Array>();
  const require = createRequire(import.meta.url);
  return {
    get(name) {
      const hit = cache.get(name);
      if (hit !== undefined) return hit;
      const artifact = PACKAGED[name];
      if (artifact === undefined) return undefined;
      const json = JSON.parse(readFileSync(require.resolve(artifact), 'utf8')) as { bytecode?: { object?: string } };
      const hex = json.bytecode?.object;
      if (typeof hex !== 'string')
        throw criticalError('UPGRADE_BYTECODE_UNAVAILABLE', `${artifact}: no bytecode.object`);
      const code = fromHex(hex);
      cache.set(name, code);
      return code;
    },
  };
}

/** The first source that has the contract wins. */
export function chainBytecode(...sources: BytecodeSource[]): BytecodeSource {
  return {
    get(name) {
      for (const s of sources) {
        const code = s.get(name);
        if (code !== undefined) return code;
      }
      return undefined;
    },
  };
}

/** Bytecode the upgrade cannot proceed without: a clear critical error naming what is missing. */
export function requireBytecode(src: BytecodeSource, name: UpgradeContract, codeHash: string): Uint8Array {
  const code = src.get(name);
  if (code === undefined) {
    throw criticalError(
      'UPGRADE_BYTECODE_UNAVAILABLE',
      `network upgrade needs the ${name} bytecode (deployed code hash ${codeHash}), which no installed package ` +
        'provides; supply it with a bytecode directory (the spec repository static/bytecode/<name>.txt)',
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
