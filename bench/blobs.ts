// Blob verification (the beacon client's KZG checks): blobs per second through the pooled BlobVerifier against the
// inline one (c-kzg on the calling thread) in the same run. Workload: 8 blocks of 6 blobs with sidecar commitments
// and proofs; inline verifies them block after block, the pool gets the 8 requests at once (derivation prefetches).
import { randomBytes } from 'node:crypto';
import type { BlobVerifier, BlobVerifyItem } from '../src/main/node/l1/blobVerifier.js';
import { InlineBlobVerifier } from '../src/main/node/l1/blobVerifierInline.js';
import { createBlobPool, PooledBlobVerifier } from '../src/main/node/l1/blobVerifierPooled.js';
import { kzgToVersionedHash } from '../src/main/protocol/blob/blobCheck.js';
import { encodeBlobData, MAX_BLOB_DATA_SIZE } from '../src/main/protocol/blob/blobData.js';
import { load as loadCKzg } from '../src/main/protocol/crypto/kzg.js';
import type { BenchRow, BenchSuite } from './suite.js';

const BLOCKS = 8;
const PER_BLOCK = 6;
const ROUNDS = 6;

function makeBlocks(): BlobVerifyItem[][] {
  const kzg = loadCKzg();
  return Array.from({ length: BLOCKS }, () =>
    Array.from({ length: PER_BLOCK }, () => {
      const blob = encodeBlobData(new Uint8Array(randomBytes(MAX_BLOB_DATA_SIZE)));
      const commitment = kzg.blobToKzgCommitment(blob);
      return {
        blob,
        commitment,
        proof: kzg.computeBlobKzgProof(blob, commitment),
        versionedHash: kzgToVersionedHash(commitment),
      };
    }),
  );
}

async function measure(name: string, rounds: number, once: () => Promise<void>, note: string): Promise<BenchRow> {
  await once(); // warm: setup loaded, threads started
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
  }
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  const blobs = BLOCKS * PER_BLOCK;
  return {
    task: name,
    opsPerSec: (blobs * 1000) / mean,
    meanMicros: (mean * 1000) / blobs,
    note: `${note}${rounds} rounds of ${blobs} blobs`,
  };
}

async function run(): Promise<BenchRow[]> {
  const blocks = makeBlocks();
  const check = (v: string[]) => {
    if (v.some((x) => x !== 'ok')) throw new Error('bench blob failed verification');
  };
  const inline: BlobVerifier = new InlineBlobVerifier();
  const pool = createBlobPool();
  const pooled = new PooledBlobVerifier(pool);
  try {
    const rows: BenchRow[] = [];
    const inlineRow = await measure(
      'verify blob+proof inline (c-kzg)',
      ROUNDS,
      async () => {
        for (const b of blocks) check(await inline.verify(b));
      },
      'batches of 6, calling thread; ',
    );
    rows.push(inlineRow);
    const pooledRow = await measure(
      `verify blob+proof pooled (${pool.threads} threads)`,
      ROUNDS,
      async () => {
        for (const v of await Promise.all(blocks.map((b) => pooled.verify(b)))) check(v);
      },
      '',
    );
    rows.push({
      ...pooledRow,
      note: `${(pooledRow.opsPerSec / inlineRow.opsPerSec).toFixed(2)}× inline; ${pooledRow.note}`,
    });
    const noProofBlock = (blocks[0] as BlobVerifyItem[]).map((b) => ({ blob: b.blob, versionedHash: b.versionedHash }));
    const one = await measure(
      'verify blob by commitment (/blobs) inline',
      2,
      async () => check(await inline.verify(noProofBlock)),
      'commitment computed per blob; ',
    );
    // measure() counts BLOCKS×PER_BLOCK blobs; this row verifies one block.
    rows.push({
      ...one,
      opsPerSec: one.opsPerSec / BLOCKS,
      meanMicros: one.meanMicros * BLOCKS,
      note: `${(one.note ?? '').replace(/of \d+ blobs/, `of ${PER_BLOCK} blobs`)}`,
    });
    return rows;
  } finally {
    await pool.close();
  }
}

export const blobsSuite: BenchSuite = { name: 'blobs', run };
