// The devnet's well-known accounts: the first ten keys of the "test test … junk" mnemonic that anvil and hardhat
// print, so wallets and scripts already know them. Roles are fixed so a devnet.json reader can rely on them.
import { addressOfKey, Keystore } from '../exec/accounts/keystore.js';

export const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
] as const;

export interface DevAccount {
  readonly role: string;
  /** 0x-prefixed lower-case. */
  readonly address: string;
  readonly privateKey: string;
}

/** Index of each role's key in DEV_KEYS; the rest are plain funded test accounts. */
export const ROLE_INDEX = { admin: 0, sequencer: 1, batcher: 2, proposer: 3 } as const;

export function addressOf(privateKey: string): string {
  return `0x${Buffer.from(addressOfKey(Uint8Array.from(Buffer.from(privateKey.slice(2), 'hex')))).toString('hex')}`;
}

export function devAccounts(): DevAccount[] {
  const roles = Object.fromEntries(Object.entries(ROLE_INDEX).map(([r, i]) => [i, r]));
  return DEV_KEYS.map((privateKey, i) => ({ role: roles[i] ?? 'test', address: addressOf(privateKey), privateKey }));
}

export function accountFor(role: keyof typeof ROLE_INDEX): DevAccount {
  return devAccounts()[ROLE_INDEX[role]] as DevAccount;
}

/**
 * Makes the L1's developer account (tern-exec --dev's eth_accounts[0], the keystore's first key) the admin key,
 * which the L1 genesis funds, as anvil's first account is: geth --dev funds the developer account it makes, but the
 * devnet's L1 starts from its own genesis, where a fresh random key would hold nothing. A keystore that already has
 * an account (a --reuse) is left alone. The empty password is the one --dev tries.
 */
export function seedL1DeveloperKeystore(keystoreDir: string): string {
  const keystore = new Keystore(keystoreDir, true);
  const first = keystore.list()[0];
  if (first !== undefined) return first.address;
  const admin = accountFor('admin');
  return keystore.add('', Uint8Array.from(Buffer.from(admin.privateKey.slice(2), 'hex'))).address;
}
