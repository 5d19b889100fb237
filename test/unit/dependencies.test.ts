// The design's native dependencies install from the lock file and load on this Node: c-kzg is built by its
// install script (allowed in package.json's allowScripts). A broken install fails here rather than later in a blob
// path.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('native dependencies', () => {
  it('c-kzg builds, loads its trusted setup and verifies a blob proof', () => {
    const kzg = require('c-kzg') as typeof import('c-kzg');
    kzg.loadTrustedSetup(0);
    const blob = new Uint8Array(kzg.BYTES_PER_BLOB);
    blob[31] = 7; // one field element, below the modulus
    const commitment = kzg.blobToKzgCommitment(blob);
    const proof = kzg.computeBlobKzgProof(blob, commitment);
    expect(kzg.verifyBlobKzgProof(blob, commitment, proof)).toBe(true);
    const other = kzg.blobToKzgCommitment(new Uint8Array(kzg.BYTES_PER_BLOB));
    expect(kzg.verifyBlobKzgProof(blob, other, proof)).toBe(false);
  });
});
