// Output root v0 against kona's vector (protocol/src/output_root.rs) and the account-proof check against a real
// trie built with @ethereumjs/mpt.
import { createMerkleProof, createMPT } from '@ethereumjs/mpt';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { toHex } from '../../../../../src/main/node/derive/types.js';
import { outputRootV0, verifyAccountProof } from '../../../../../src/main/node/engine/output.js';
import { rlpEncode } from '../../../../../src/main/primitives/rlp.js';

const padded = (...bytes: number[]) => {
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
};

describe('outputRootV0', () => {
  it('matches the published vector', () => {
    const root = outputRootV0(padded(0xbe, 0xef), padded(0xba, 0xbe), padded(0xc0, 0xde));
    expect(toHex(root)).toBe('0x0c39fb6b07cf6694b13e63e59f7b15255be1c93a4d6d3e0da6c99729647c0d11');
  });

  it('depends on each commitment in its place', () => {
    const a = toHex(outputRootV0(padded(1), padded(2), padded(3)));
    expect(toHex(outputRootV0(padded(2), padded(1), padded(3)))).not.toBe(a);
    expect(toHex(outputRootV0(padded(1), padded(2), padded(4)))).not.toBe(a);
  });
});

describe('verifyAccountProof', () => {
  const passer = Uint8Array.from(Buffer.from('4200000000000000000000000000000000000016', 'hex'));
  const storageRoot = padded(0x42, 0x42);

  async function stateWith(root: Uint8Array) {
    const trie = await createMPT({ useKeyHashing: false });
    const account = rlpEncode([Uint8Array.of(1), Uint8Array.of(5), root, new Uint8Array(32).fill(0xcc)]);
    await trie.put(keccak256(passer), account);
    for (let i = 0; i < 20; i++) await trie.put(keccak256(Uint8Array.of(i)), rlpEncode([Uint8Array.of(i)]));
    return { stateRoot: trie.root(), proof: await createMerkleProof(trie, keccak256(passer)) };
  }

  it('accepts a proof of the reported storage root', async () => {
    const { stateRoot, proof } = await stateWith(storageRoot);
    await expect(verifyAccountProof(stateRoot, passer, proof, storageRoot)).resolves.toBeUndefined();
  });

  it('rejects a storage root the proof does not show, and a proof from another state', async () => {
    const { stateRoot, proof } = await stateWith(storageRoot);
    await expect(verifyAccountProof(stateRoot, passer, proof, padded(1))).rejects.toThrow(/storage root/);
    await expect(verifyAccountProof(padded(7), passer, proof, storageRoot)).rejects.toThrow(/state root/);
  });
});
