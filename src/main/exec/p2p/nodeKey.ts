// The node's devp2p identity: --nodekeyhex, else the --nodekey file, else the key persisted in the data directory
// (geth's layout: <datadir>/<instance>/nodekey, 64 hex digits, mode 0600, created on first start). The node id is
// the uncompressed public key without its 0x04 prefix; the enode URL names it with the listening address.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { UsageError } from '../../common/errors.js';
import { readHex32File } from '../../common/secretFile.js';

/** tern-exec's instance directory inside --datadir (geth uses `geth`). */
export const INSTANCE_DIR = 'tern-exec';
export const NODE_KEY_FILE = 'nodekey';

export interface NodeKeySource {
  /** --nodekeyhex (0x + 64 hex, already checked by the flag table). */
  hex?: string | undefined;
  /** --nodekey */
  file?: string | undefined;
  /** --datadir; undefined for an ephemeral node (a fresh key each start, as geth without a datadir). */
  datadir?: string | undefined;
}

export interface NodeKey {
  privateKey: Uint8Array;
  /** 64-byte node id (uncompressed public key without 0x04). */
  id: Uint8Array;
  /** Where it came from, for the startup log. */
  source: 'nodekeyhex' | 'nodekey' | 'datadir' | 'generated' | 'ephemeral';
  path?: string;
}

function checkKey(key: Uint8Array, where: string): Uint8Array {
  if (!secp256k1.utils.isValidSecretKey(key)) {
    throw new UsageError(`${where} is not a valid secp256k1 private key (must be 0 < key < curve order)`);
  }
  return key;
}

export function nodeIdOf(privateKey: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(privateKey, false).subarray(1);
}

function generateKey(): Uint8Array {
  for (;;) {
    const k = Uint8Array.from(randomBytes(32));
    if (secp256k1.utils.isValidSecretKey(k)) return k;
  }
}

/** The node key per geth's precedence: --nodekeyhex, --nodekey, then <datadir>/tern-exec/nodekey. */
export function loadNodeKey(src: NodeKeySource): NodeKey {
  const done = (privateKey: Uint8Array, source: NodeKey['source'], path?: string): NodeKey => ({
    privateKey,
    id: nodeIdOf(privateKey),
    source,
    ...(path !== undefined ? { path } : {}),
  });
  if (src.hex !== undefined && src.hex !== '') {
    const body = src.hex.replace(/^0x/i, '');
    if (!/^[0-9a-fA-F]{64}$/.test(body)) throw new UsageError('--nodekeyhex must be 64 hex digits');
    return done(checkKey(Uint8Array.from(Buffer.from(body, 'hex')), '--nodekeyhex'), 'nodekeyhex');
  }
  if (src.file !== undefined && src.file !== '') {
    const key = readHex32File(src.file, 'node key');
    if (key === undefined) throw new UsageError(`--nodekey file ${src.file} does not exist`);
    return done(checkKey(key, `node key file ${src.file}`), 'nodekey', src.file);
  }
  if (src.datadir === undefined || src.datadir === '') return done(generateKey(), 'ephemeral');
  const path = join(src.datadir, INSTANCE_DIR, NODE_KEY_FILE);
  const existing = readHex32File(path, 'node key');
  if (existing !== undefined) return done(checkKey(existing, `node key file ${path}`), 'datadir', path);
  const key = generateKey();
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // geth's SaveECDSA: the bare hex, no 0x, no newline.
    writeFileSync(path, Buffer.from(key).toString('hex'), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    throw new UsageError(`cannot write node key file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return done(key, 'generated', path);
}
