// One suite over both BlobVerifier implementations (inline c-kzg and the piscina pool).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlobVerifier, BlobVerifyItem } from '../../../../../src/main/node/l1/blobVerifier.js';
import { InlineBlobVerifier } from '../../../../../src/main/node/l1/blobVerifierInline.js';
import { createBlobPool, PooledBlobVerifier } from '../../../../../src/main/node/l1/blobVerifierPooled.js';
import type { WorkerPool } from '../../../../../src/main/pool/interface.js';
import { encodeBlobData } from '../../../../../src/main/protocol/blob/blobData.js';
import { load as loadCKzg } from '../../../../../src/main/protocol/crypto/kzg.js';
import { FIXTURES } from '../../../../helpers/paths.js';

const hexBytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/^0x/, ''), 'hex'));
/** Independent of the code under test: @noble's sha256, version byte 0x01. */
const versionedHash = (commitment: Uint8Array) => {
  const h = sha256(commitment);
  h[0] = 1;
  return h;
};

interface Sidecar {
  index: string;
  blob: string;
  kzg_commitment: string;
  kzg_proof: string;
}
const sidecars = (
  JSON.parse(
    readFileSync(join(FIXTURES, 'op-l1-rpc/beacon/eth_v1_beacon_blob_sidecars_7422094_goerli.json'), 'utf8'),
  ) as { data: Sidecar[] }
).data;

const fromSidecar = (s: Sidecar): BlobVerifyItem => {
  const commitment = hexBytes(s.kzg_commitment);
  return { blob: hexBytes(s.blob), commitment, proof: hexBytes(s.kzg_proof), versionedHash: versionedHash(commitment) };
};

const pools: WorkerPool<never>[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

const IMPLEMENTATIONS: [string, () => BlobVerifier][] = [
  ['inline', () => new InlineBlobVerifier()],
  [
    'pooled over piscina',
    () => {
      const pool = createBlobPool({ threads: 2 });
      pools.push(pool as unknown as WorkerPool<never>);
      return new PooledBlobVerifier(pool);
    },
  ],
];

describe.each(IMPLEMENTATIONS)('BlobVerifier (%s)', (_name, make) => {
  const verifier = make();

  it('accepts the five goerli sidecars (commitment → versioned hash, batched proof)', async () => {
    expect(await verifier.verify(sidecars.map(fromSidecar))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
  });

  it('names the bad one among good ones: wrong hash, wrong proof, swapped blob', async () => {
    const items = sidecars.map(fromSidecar);
    const wrongHash = { ...(items[0] as BlobVerifyItem), versionedHash: versionedHash(new Uint8Array(48)) };
    const wrongProof = { ...(items[1] as BlobVerifyItem), proof: (items[2] as BlobVerifyItem).proof };
    const swapped = { ...(items[3] as BlobVerifyItem), blob: (items[4] as BlobVerifyItem).blob };
    expect(await verifier.verify([wrongHash, wrongProof, items[2] as BlobVerifyItem, swapped])).toEqual([
      'hash-mismatch',
      'proof-invalid',
      'ok',
      'proof-invalid',
    ]);
  });

  it('checks blobs without proofs by computing the commitment (the /blobs endpoint)', async () => {
    const kzg = loadCKzg();
    const blob = encodeBlobData(new TextEncoder().encode('tern blob'));
    const good = { blob, versionedHash: versionedHash(kzg.blobToKzgCommitment(blob)) };
    const other = { blob: hexBytes((sidecars[0] as Sidecar).blob), versionedHash: good.versionedHash };
    expect(await verifier.verify([good, other])).toEqual(['ok', 'hash-mismatch']);
  });

  it('reports a blob c-kzg refuses (field element above the modulus) as malformed', async () => {
    const blob = new Uint8Array(131_072).fill(0xff);
    const item = fromSidecar(sidecars[0] as Sidecar);
    expect(
      await verifier.verify([
        { ...item, blob },
        { blob, versionedHash: item.versionedHash },
      ]),
    ).toEqual(['malformed', 'malformed']);
  });

  it('rejects wrong sizes and an aborted request, and answers [] for nothing', async () => {
    const item = fromSidecar(sidecars[0] as Sidecar);
    await expect(verifier.verify([{ ...item, blob: new Uint8Array(10) }])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(verifier.verify([{ ...item, proof: undefined }])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(verifier.verify([item], { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await verifier.verify([])).toEqual([]);
  });

  it('leaves the caller’s buffers intact', async () => {
    const item = fromSidecar(sidecars[0] as Sidecar);
    await verifier.verify([item]);
    expect(item.blob.length).toBe(131_072);
    expect(item.commitment?.length).toBe(48);
  });
});

describe('PooledBlobVerifier task split', () => {
  /** A two-thread pool that records each task's blob count and settles tasks when told to. */
  function recordingPool() {
    const counts: number[] = [];
    const pending: Array<() => void> = [];
    const pool = {
      threads: 2,
      capacity: 8,
      queueSize: 0,
      whenReady: async () => {},
      run: (_name: string, input: { count: number }) => {
        counts.push(input.count);
        return new Promise((resolve) => pending.push(() => resolve({ status: new Uint8Array(input.count) })));
      },
      runResult: async () => ({ ok: false }),
      close: async () => {},
    };
    const settleAll = () => {
      for (const done of pending.splice(0)) done();
    };
    return { pool: pool as unknown as WorkerPool<never>, counts, settleAll };
  }

  it('splits a request across idle threads, sends it whole while the threads are busy', async () => {
    const { pool, counts, settleAll } = recordingPool();
    const verifier = new PooledBlobVerifier(pool as never);
    const item = fromSidecar(sidecars[0] as Sidecar);
    const six = Array.from({ length: 6 }, () => item);
    const first = verifier.verify(six);
    const second = verifier.verify(six);
    expect(counts).toEqual([3, 3, 6]);
    settleAll();
    expect(await first).toEqual(Array(6).fill('ok'));
    expect(await second).toEqual(Array(6).fill('ok'));
    // Both threads free again: the next request is split once more.
    const third = verifier.verify(six);
    expect(counts).toEqual([3, 3, 6, 3, 3]);
    settleAll();
    await third;
  });
});
