// geth's key store: one Web3 Secret Storage (version 3) JSON file per account in the keystore directory, named
// UTC--<time>--<address>. scrypt (geth's default and --lightkdf parameters) and pbkdf2 files both decrypt; new
// files use scrypt, so geth, ethers and any v3 reader open them. Key derivation uses node:crypto's native scrypt.
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scrypt as nobleScrypt } from '@noble/hashes/scrypt.js';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { secp256k1 as secp } from '../../protocol/crypto/secp256k1.js';

/** geth's StandardScryptN/P and LightScryptN/P. */
export const SCRYPT_STANDARD = { n: 1 << 18, p: 1 } as const;
export const SCRYPT_LIGHT = { n: 1 << 12, p: 6 } as const;
const SCRYPT_R = 8;

export interface KeyFile {
  address: string;
  crypto: {
    cipher: string;
    ciphertext: string;
    cipherparams: { iv: string };
    kdf: string;
    kdfparams: Record<string, number | string>;
    mac: string;
  };
  id: string;
  version: number;
}

const unhex = (s: string) => Buffer.from(s.replace(/^0x/, ''), 'hex');

export function addressOfKey(privateKey: Uint8Array): Uint8Array {
  return keccak256(secp.publicKeyCreate(privateKey, false).subarray(1)).subarray(12);
}

function deriveKey(password: string, kdf: string, params: Record<string, number | string>): Buffer {
  const salt = unhex(String(params.salt ?? ''));
  const dklen = Number(params.dklen ?? 32);
  if (kdf === 'scrypt') {
    const N = Number(params.n);
    const r = Number(params.r);
    const p = Number(params.p);
    try {
      // node's default memory cap (32 MiB) is below geth's standard parameters (256 MiB); 1 GiB leaves room.
      return scryptSync(password, salt, dklen, { N, r, p, maxmem: 1 << 30 });
    } catch {
      // OpenSSL refuses N >= 2^(16r) (the wiki's r = 1 files); the JS implementation takes any valid parameters.
      return Buffer.from(nobleScrypt(password, salt, { N, r, p, dkLen: dklen, maxmem: 2 ** 31 }));
    }
  }
  if (kdf === 'pbkdf2') {
    if (params.prf !== 'hmac-sha256')
      throw new TernError('KEYSTORE_UNSUPPORTED', `unsupported pbkdf2 prf ${params.prf}`);
    return pbkdf2Sync(password, salt, Number(params.c), dklen, 'sha256');
  }
  throw new TernError('KEYSTORE_UNSUPPORTED', `unsupported key derivation function ${kdf}`);
}

/** Decrypts a v3 key file; a wrong password is KEYSTORE_BAD_PASSWORD (the MAC does not match). */
export function decryptKeyFile(json: KeyFile, password: string): Uint8Array {
  if (json.version !== 3) throw new TernError('KEYSTORE_UNSUPPORTED', `key file version ${json.version}, want 3`);
  const c = json.crypto ?? (json as unknown as { Crypto: KeyFile['crypto'] }).Crypto;
  if (c.cipher !== 'aes-128-ctr') throw new TernError('KEYSTORE_UNSUPPORTED', `unsupported cipher ${c.cipher}`);
  const derived = deriveKey(password, c.kdf, c.kdfparams);
  const ciphertext = unhex(c.ciphertext);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext]));
  if (!Buffer.from(mac).equals(unhex(c.mac))) {
    throw new TernError('KEYSTORE_BAD_PASSWORD', 'could not decrypt key with given password');
  }
  const plain = createDecipheriv('aes-128-ctr', derived.subarray(0, 16), unhex(c.cipherparams.iv)).update(ciphertext);
  // Old geth versions stored keys of 30 or 31 bytes without leading zeros.
  const key = new Uint8Array(32);
  key.set(plain, 32 - plain.length);
  return key;
}

export function encryptKey(privateKey: Uint8Array, password: string, light = false): KeyFile {
  const { n, p } = light ? SCRYPT_LIGHT : SCRYPT_STANDARD;
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const kdfparams = { dklen: 32, n, p, r: SCRYPT_R, salt: salt.toString('hex') };
  const derived = deriveKey(password, 'scrypt', kdfparams);
  const ciphertext = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv).update(privateKey);
  return {
    address: Buffer.from(addressOfKey(privateKey)).toString('hex'),
    crypto: {
      cipher: 'aes-128-ctr',
      ciphertext: ciphertext.toString('hex'),
      cipherparams: { iv: iv.toString('hex') },
      kdf: 'scrypt',
      kdfparams,
      mac: Buffer.from(keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext]))).toString('hex'),
    },
    id: randomUUID(),
    version: 3,
  };
}

/** geth's key file name: UTC--2006-01-02T15-04-05.000000000Z--<address>. */
export function keyFileName(address: string, at = new Date()): string {
  const iso = at.toISOString(); // 2006-01-02T15:04:05.000Z
  return `UTC--${iso.slice(0, 19).replaceAll(':', '-')}.${iso.slice(20, 23)}000000Z--${address}`;
}

export interface KeystoreEntry {
  /** 0x-prefixed lower-case address. */
  address: string;
  path: string;
}

export class Keystore {
  constructor(
    readonly dir: string,
    private readonly light = false,
  ) {}

  /** Accounts in the directory, in file-name order (creation time) as geth lists them; unreadable files skipped. */
  list(): KeystoreEntry[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: KeystoreEntry[] = [];
    for (const name of names) {
      if (name.startsWith('.') || name.endsWith('~')) continue;
      const path = join(this.dir, name);
      try {
        const json = JSON.parse(readFileSync(path, 'utf8')) as Partial<KeyFile>;
        if (typeof json.address !== 'string' || !/^(0x)?[0-9a-fA-F]{40}$/.test(json.address)) continue;
        out.push({ address: `0x${json.address.replace(/^0x/, '').toLowerCase()}`, path });
      } catch {
        // Not a key file (geth skips those too).
      }
    }
    return out;
  }

  unlock(entry: KeystoreEntry, password: string): Uint8Array {
    const key = decryptKeyFile(JSON.parse(readFileSync(entry.path, 'utf8')) as KeyFile, password);
    if (`0x${Buffer.from(addressOfKey(key)).toString('hex')}` !== entry.address) {
      throw new TernError('KEYSTORE_ADDRESS_MISMATCH', `key file ${entry.path} holds a key for another address`);
    }
    return key;
  }

  /** Stores a key (a new random one unless given), written atomically with mode 0600 in a 0700 directory. */
  add(password: string, privateKey: Uint8Array = newPrivateKey()): KeystoreEntry {
    const json = encryptKey(privateKey, password, this.light);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, keyFileName(json.address));
    const tmp = `${path}.tmp`;
    writeFileSync(tmp, JSON.stringify(json), { mode: 0o600 });
    renameSync(tmp, path);
    return { address: `0x${json.address}`, path };
  }
}

export function newPrivateKey(): Uint8Array {
  for (;;) {
    const k = randomBytes(32);
    if (secp.privateKeyVerify(k)) return new Uint8Array(k);
  }
}
