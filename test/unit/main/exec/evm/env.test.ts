import { createRequire } from 'node:module';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { createBlockEnv, forkRules } from '../../../../../src/main/exec/evm/env.js';
import { fromHex, toHexKey } from '../../../../../src/main/primitives/bytes.js';
import { createKzg, load as loadKzg } from '../../../../../src/main/protocol/crypto/kzg.js';

const common = new Common({ chain: Mainnet });
const base = {
  common,
  number: 5n,
  timestamp: 100n,
  coinbase: new Address(new Uint8Array(20)),
  gasLimit: 30_000_000n,
};

describe('block environment', () => {
  it('derives the rules from the hardfork', () => {
    const cancun = forkRules(common, Hardfork.Cancun);
    expect(cancun.shanghai && cancun.cancun && cancun.london && cancun.berlin).toBe(true);
    expect(cancun.prague).toBe(false);
    expect(forkRules(common, Hardfork.Berlin).london).toBe(false);
  });

  it('requires the fields its hardfork needs', () => {
    expect(() => createBlockEnv({ ...base, hardfork: Hardfork.London })).toThrow(/baseFee is required from london/);
    expect(() => createBlockEnv({ ...base, hardfork: Hardfork.Paris, baseFee: 7n })).toThrow(/prevRandao/);
    expect(() =>
      createBlockEnv({ ...base, hardfork: Hardfork.Cancun, baseFee: 7n, prevRandao: new Uint8Array(32) }),
    ).toThrow(/excessBlobGas/);
    expect(createBlockEnv({ ...base, hardfork: Hardfork.Berlin }).baseFee).toBeUndefined();
  });

  it('computes the blob base fee and the blob limit of Cancun and Prague', () => {
    const fields = { ...base, baseFee: 7n, prevRandao: new Uint8Array(32), excessBlobGas: 10_000_000n };
    const cancun = createBlockEnv({ ...fields, hardfork: Hardfork.Cancun });
    expect(cancun.blobBaseFee).toBe(19n);
    expect(cancun.maxBlobsPerBlock).toBe(6);
    expect(cancun.maxBlobGasPerBlock).toBe(786_432n);
    expect(cancun.evmBlock.header.getBlobGasPrice()).toBe(19n);
    const prague = createBlockEnv({ ...fields, hardfork: Hardfork.Prague });
    // e^(10,000,000 / 5,007,716) = e^1.9969 = 7.37
    expect(prague.blobBaseFee).toBe(7n);
    expect(prague.maxBlobsPerBlock).toBe(9);
    // An OP-Stack or custom schedule overrides both.
    const custom = createBlockEnv({
      ...fields,
      hardfork: Hardfork.Cancun,
      blobBaseFeeUpdateFraction: 10_000_000n,
      maxBlobsPerBlock: 1,
    });
    expect(custom.maxBlobGasPerBlock).toBe(131_072n);
    expect(custom.blobBaseFee).toBe(2n); // e^1
  });

  it('reads 0 difficulty after the merge and exposes the header to the EVM', () => {
    const randao = fromHex(`0x${'ab'.repeat(32)}`);
    const env = createBlockEnv({
      ...base,
      hardfork: Hardfork.Cancun,
      baseFee: 7n,
      prevRandao: randao,
      excessBlobGas: 0n,
      difficulty: 131_072n,
    });
    expect(env.difficulty).toBe(0n);
    expect(env.evmBlock.header.prevRandao).toEqual(randao);
    expect(env.evmBlock.header.baseFeePerGas).toBe(7n);
    expect(env.chainId).toBe(1n);
    expect(env.getBlockHash(4n)).toBeUndefined();
  });
});

describe('KZG adapter', () => {
  it('verifies a point-evaluation proof made by c-kzg, and rejects a wrong value', () => {
    // createKzg() is lazy (the trusted setup loads on its first call): load() gives c-kzg with the setup loaded.
    const ckzg = loadKzg();
    expect(createRequire(import.meta.url)('c-kzg')).toBe(ckzg);
    const kzg = createKzg();
    const blob = new Uint8Array(ckzg.BYTES_PER_BLOB);
    blob[31] = 3;
    const commitment = ckzg.blobToKzgCommitment(blob);
    const z = new Uint8Array(32);
    z[31] = 9;
    const [proof, y] = ckzg.computeKzgProof(blob, z);
    expect(kzg.verifyProof(toHexKey(commitment), toHexKey(z), toHexKey(y), toHexKey(proof))).toBe(true);
    const wrong = y.slice();
    wrong[31] = (wrong[31] as number) ^ 1;
    expect(kzg.verifyProof(toHexKey(commitment), toHexKey(z), toHexKey(wrong), toHexKey(proof))).toBe(false);
    expect(kzg.blobToKzgCommitment(toHexKey(blob))).toBe(toHexKey(commitment));
  });
});
