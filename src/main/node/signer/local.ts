// The local block signer: a secp256k1 private key held in memory (--p2p.sequencer.key).

import { TernError } from '../../common/errors.js';
import { secp256k1 as secp } from '../../protocol/crypto/secp256k1.js';
import type { BlockSigner } from './interface.js';
import { addressOfPublicKey, SIGNING_DOMAIN_BLOCKS_V1, signingHash } from './signingHash.js';

/** Parses a hex private key (with or without 0x). The message never contains the key. */
export function parsePrivateKey(hex: string): Uint8Array {
  const s = hex.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(s)) {
    throw new TernError('SIGNER_BAD_KEY', 'the sequencer key must be 32 bytes of hex (64 hex digits, 0x optional)');
  }
  const key = Uint8Array.from(Buffer.from(s, 'hex'));
  if (!secp.privateKeyVerify(key))
    throw new TernError('SIGNER_BAD_KEY', 'the sequencer key is not a valid secp256k1 key');
  return key;
}

export class LocalSigner implements BlockSigner {
  readonly kind = 'local' as const;
  readonly address: string;
  #key: Uint8Array | undefined;

  constructor(privateKey: Uint8Array | string) {
    this.#key = typeof privateKey === 'string' ? parsePrivateKey(privateKey) : Uint8Array.from(privateKey);
    if (!secp.privateKeyVerify(this.#key))
      throw new TernError('SIGNER_BAD_KEY', 'the sequencer key is not a valid secp256k1 key');
    this.address = addressOfPublicKey(secp.publicKeyCreate(this.#key, false));
  }

  async signBlock(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array> {
    const key = this.#key;
    if (key === undefined) throw new TernError('SIGNER_CLOSED', 'the signer is closed');
    const hash = signingHash(SIGNING_DOMAIN_BLOCKS_V1, chainId, payloadHash);
    const { signature, recid } = secp.ecdsaSign(hash, key);
    const out = new Uint8Array(65);
    out.set(signature, 0);
    out[64] = recid;
    return out;
  }

  async close(): Promise<void> {
    this.#key?.fill(0);
    this.#key = undefined;
  }
}
