// The accounts tern-exec can sign with: the keystore's accounts, of which those whose password is given
// (--password: one line per account in keystore order, or a single line for all) are unlocked at startup.
// Signing follows geth: eth_sign hashes with the EIP-191 "Ethereum Signed Message" prefix and returns r||s||v
// with v = 27 + recovery id.
import { readFileSync } from 'node:fs';
import { TernError, UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { keccak256 } from '../../native/keccak.js';
import { secp256k1 as secp } from '../../protocol/crypto/secp256k1.js';
import { Keystore, type KeystoreEntry } from './keystore.js';

export interface AccountsOptions {
  keystoreDir: string;
  lightKdf?: boolean;
  /** The --password file, read at startup. */
  passwordFile?: string;
}

/** Lines of a password file as geth reads them: split on newlines, trailing CR removed. */
export function readPasswordFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read password file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

export function personalMessageHash(message: Uint8Array): Uint8Array {
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${message.length}`);
  return keccak256(Buffer.concat([prefix, message]));
}

export class AccountManager {
  readonly keystore: Keystore;
  private readonly unlocked = new Map<string, Uint8Array>();
  readonly passwords: readonly string[];

  constructor(
    opts: AccountsOptions,
    private readonly deps: { logger?: Logger } = {},
  ) {
    this.keystore = new Keystore(opts.keystoreDir, opts.lightKdf ?? false);
    this.passwords = opts.passwordFile === undefined ? [] : readPasswordFile(opts.passwordFile);
  }

  /** Unlocks every keystore account its password line opens; the others stay locked (logged, not fatal). */
  unlockWithPasswords(): void {
    if (this.passwords.length === 0) return;
    this.keystore.list().forEach((entry, i) => {
      const password = this.passwords[Math.min(i, this.passwords.length - 1)] as string;
      try {
        this.unlockEntry(entry, password);
      } catch (err) {
        this.deps.logger?.warn('Account stays locked', { address: entry.address, err: (err as Error).message });
      }
    });
  }

  unlockEntry(entry: KeystoreEntry, password: string): void {
    this.unlocked.set(entry.address, this.keystore.unlock(entry, password));
    this.deps.logger?.info('Unlocked account', { address: entry.address });
  }

  /** Adds an already known key as unlocked (the --dev account). */
  addUnlocked(address: string, key: Uint8Array): void {
    this.unlocked.set(address.toLowerCase(), key);
  }

  /** eth_accounts: every keystore account plus unlocked ones not in the keystore, lower-case 0x addresses. */
  accounts(): string[] {
    const all = this.keystore.list().map((e) => e.address);
    for (const a of this.unlocked.keys()) if (!all.includes(a)) all.push(a);
    return all;
  }

  isUnlocked(address: string): boolean {
    return this.unlocked.has(address.toLowerCase());
  }

  private key(address: string): Uint8Array {
    const key = this.unlocked.get(address.toLowerCase());
    if (key === undefined) {
      const known = this.accounts().includes(address.toLowerCase());
      throw new TernError('ACCOUNT_LOCKED', known ? 'authentication needed: password or unlock' : 'unknown account');
    }
    return key;
  }

  /** Signs a 32-byte hash: r (32) || s (32) || recovery id (1). */
  signHash(address: string, hash: Uint8Array): Uint8Array {
    const { signature, recid } = secp.ecdsaSign(hash, this.key(address));
    const out = new Uint8Array(65);
    out.set(signature);
    out[64] = recid;
    return out;
  }

  /** eth_sign: the personal-message hash signed, v as 27/28. */
  signMessage(address: string, message: Uint8Array): Uint8Array {
    const sig = this.signHash(address, personalMessageHash(message));
    sig[64] = (sig[64] as number) + 27;
    return sig;
  }

  /** The private key of an unlocked account, for transaction signing in this process only. */
  privateKey(address: string): Uint8Array {
    return this.key(address);
  }
}
