// Tx-pool admission's heavy checks on the worker pools (exec/txpool/admission.ts): the pooled checks answer what
// the inline ones answer (signatures below and above the inline threshold, valid and corrupted blob proofs), the
// pool decides with the admission's answers (not a second, inline check), a batch's signatures go out as one
// request, and the pool over the worker pools admits and refuses as before. The pools load from dist/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { SenderResult } from '../../../../../src/main/exec/senders/interface.js';
import { PooledSenderRecovery } from '../../../../../src/main/exec/senders/pooled.js';
import {
  type AdmissionChecks,
  createAdmission,
  inlineAdmission,
  MIN_POOLED_SENDERS,
  PooledAdmission,
} from '../../../../../src/main/exec/txpool/admission.js';
import { TernTxPool } from '../../../../../src/main/exec/txpool/pool.js';
import { type BlobSidecar, splitBlobTx } from '../../../../../src/main/exec/txpool/sidecar.js';
import { recoverSender } from '../../../../../src/main/protocol/senders/recover.js';
import { EXECUTION_APIS } from '../rpc/chain.js';
import { FakeChain, type Key, keys, tx } from './fakeChain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const [A] = keys as [Key];
const pooled = new PooledAdmission({ threads: 2 });
afterAll(() => pooled.close());

const blobTx = (): Uint8Array => {
  const line = readFileSync(join(EXECUTION_APIS, 'eth_sendRawTransaction', 'send-blob-tx.io'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('>> ')) as string;
  const hexTx = (JSON.parse(line.slice(3)) as { params: [string] }).params[0];
  return Uint8Array.from(Buffer.from(hexTx.slice(2), 'hex'));
};

/** The blob transaction with one byte of its (only) proof flipped. */
function corruptProof(raw: Uint8Array): Uint8Array {
  const bad = raw.slice();
  bad[bad.length - 5] = (bad[bad.length - 5] as number) ^ 1;
  return bad;
}

function chain(): FakeChain {
  const c = new FakeChain();
  // The execution-apis blob transaction pays a fee cap far below 1 gwei: a head it can be admitted at.
  c.head = { ...c.head, header: { ...c.head.header, baseFeePerGas: 1n } };
  for (const k of keys) c.fund(k.address, 10n ** 18n);
  c.fund(`0x${Buffer.from(recoverSender(splitBlobTx(blobTx()).consensus)).toString('hex')}`, 10n ** 20n);
  return c;
}

const sidecarOf = (raw: Uint8Array) => splitBlobTx(raw).sidecar as BlobSidecar;
const hexOf = (r: SenderResult) => (r.ok ? Buffer.from(r.address).toString('hex') : r.message);

describe('admission checks, pooled against inline', () => {
  it('recover the same senders below and above the inline threshold', async () => {
    const raws = await Promise.all(Array.from({ length: 3 * MIN_POOLED_SENDERS }, (_, i) => tx(A, { nonce: i })));
    // A flipped byte of s: still a signature, of someone else.
    const other = raws[1]?.slice() as Uint8Array;
    other[other.length - 1] = (other[other.length - 1] as number) ^ 1;
    raws.push(other);
    for (const batch of [raws.slice(0, 1), raws.slice(0, MIN_POOLED_SENDERS - 1), raws]) {
      const inline = (await inlineAdmission.senders(batch)).map(hexOf);
      expect((await pooled.senders(batch)).map(hexOf)).toEqual(inline);
    }
    const all = (await pooled.senders(raws)).map(hexOf);
    expect(all.slice(0, -1).every((a) => a === A.address.slice(2).toLowerCase())).toBe(true);
    expect(all.at(-1)).not.toBe(A.address.slice(2).toLowerCase());
  });

  it("recovers on the node's sender pool when given it (no pool of its own), and leaves it open on close", async () => {
    const shared = new PooledSenderRecovery({ threads: 1, chunkSize: 64 });
    try {
      const seen: number[] = [];
      const counting = {
        recover: (raws: readonly Uint8Array[]) => {
          seen.push(raws.length);
          return shared.recover(raws);
        },
        recoverStream: (raws: readonly Uint8Array[]) => shared.recoverStream(raws),
        close: () => shared.close(),
      };
      const admission = createAdmission(undefined, logger, counting);
      const raws = await Promise.all(Array.from({ length: 3 }, (_, i) => tx(A, { nonce: i })));
      expect((await admission.senders(raws)).map(hexOf)).toEqual((await inlineAdmission.senders(raws)).map(hexOf));
      expect(seen).toEqual([3]);
      await admission.close();
      // Still the node's to use (and to close).
      expect((await shared.recover(raws.slice(0, 1)))[0]?.ok).toBe(true);
      // An explicit thread count keeps pools of its own.
      const own = createAdmission(1, logger, counting);
      await own.senders(raws);
      expect(seen).toEqual([3]);
      await own.close();
    } finally {
      await shared.close();
    }
  });

  it('agree on blob proofs: a valid sidecar verifies, a corrupted proof does not', async () => {
    const good = sidecarOf(blobTx());
    expect(await inlineAdmission.blobProofs(good)).toBe(true);
    expect(await pooled.blobProofs(good)).toBe(true);
    const bad = sidecarOf(corruptProof(blobTx()));
    const verdict = async (a: AdmissionChecks) => a.blobProofs(bad).catch(() => 'refused');
    expect(await verdict(inlineAdmission)).not.toBe(true);
    expect(await verdict(pooled)).toBe(await verdict(inlineAdmission));
  });
});

/** Inline checks that record what the pool asked, optionally answering otherwise. */
function recording(over: Partial<AdmissionChecks> = {}) {
  const calls = { senders: [] as number[], blobProofs: 0 };
  const checks: AdmissionChecks = {
    senders: (raws) => {
      calls.senders.push(raws.length);
      return (over.senders ?? inlineAdmission.senders)(raws);
    },
    blobProofs: (s) => {
      calls.blobProofs++;
      return (over.blobProofs ?? inlineAdmission.blobProofs)(s);
    },
    close: async () => {},
  };
  return { checks, calls };
}

describe('the pool over its admission checks', () => {
  it("sends a batch's signatures in one request and a sidecar's proofs to the checks", async () => {
    const { checks, calls } = recording();
    const pool = await TernTxPool.open(chain(), {}, { logger, admission: checks });
    const raws = await Promise.all(Array.from({ length: 6 }, (_, i) => tx(A, { nonce: i })));
    const results = await pool.addBatch(raws);
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, true]);
    expect(calls.senders).toEqual([6]);
    expect((await pool.add(blobTx())).ok).toBe(true);
    expect(calls).toEqual({ senders: [6, 1], blobProofs: 1 });
    await pool.close();
  });

  it('recovers the signatures of concurrent additions together', async () => {
    const { checks, calls } = recording();
    const pool = await TernTxPool.open(chain(), {}, { logger, admission: checks });
    const raws = await Promise.all(Array.from({ length: 5 }, (_, i) => tx(A, { nonce: i })));
    const results = await Promise.all(raws.map((raw) => pool.add(raw, { local: true })));
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true]);
    expect(calls.senders).toEqual([5]);
    await pool.close();
  });

  it("decides with the checks' answers", async () => {
    const { checks } = recording({
      senders: async (raws) => raws.map(() => ({ ok: false, code: 'TX_INVALID_SIGNATURE', message: 'no key' })),
      blobProofs: async () => false,
    });
    const pool = await TernTxPool.open(chain(), {}, { logger, admission: checks });
    const r = await pool.add(await tx(A, { nonce: 0 }));
    expect(r.ok ? '' : r.message).toBe('invalid sender: no key');
    const { checks: noProof } = recording({ blobProofs: async () => false });
    const pool2 = await TernTxPool.open(chain(), {}, { logger, admission: noProof });
    const b = await pool2.add(blobTx());
    expect(b.ok ? '' : b.message).toBe('invalid blob proof: kzg verification failed');
    await pool.close();
    await pool2.close();
  });

  it('admits and refuses as before on the worker pools', async () => {
    const pool = await TernTxPool.open(chain(), {}, { logger, admission: pooled });
    const raws = await Promise.all(Array.from({ length: 2 * MIN_POOLED_SENDERS }, (_, i) => tx(A, { nonce: i })));
    expect((await pool.addBatch(raws)).every((r) => r.ok)).toBe(true);
    const pending = pool.content(Buffer.from(A.address.slice(2), 'hex')).pending.get(A.address.toLowerCase()) ?? [];
    expect(pending.map((t) => Number(t.tx.nonce))).toEqual(raws.map((_, i) => i));
    expect((await pool.add(blobTx())).ok).toBe(true);
    const pool2 = await TernTxPool.open(chain(), {}, { logger, admission: pooled });
    const bad = await pool2.add(corruptProof(blobTx()));
    expect(bad.ok ? '' : bad.message).toMatch(/^invalid blob proof: /);
    expect((await pool2.add(blobTx())).ok).toBe(true);
    await pool.close();
    await pool2.close();
  });
});
