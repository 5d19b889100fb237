import { parseTransaction, recoverTransactionAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { TxData } from '../../../../src/main/batcher/channelManager.js';
import {
  batcherPayload,
  blobSidecar,
  intrinsicGas,
  kzgToVersionedHash,
  signerFromPrivateKey,
  signTx,
} from '../../../../src/main/batcher/l1Tx.js';
import { splitBlobTx, validateSidecar } from '../../../../src/main/exec/txpool/sidecar.js';
import { keccak256 } from '../../../../src/main/native/keccak.js';
import { decodeTransaction } from '../../../../src/main/primitives/tx/decode.js';
import { decodeBlobData } from '../../../../src/main/protocol/blob/blobData.js';
import { type Frame, parseFrames } from '../../../../src/main/protocol/channel/frame.js';

const KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const INBOX = '0xff00000000000000000000000000000000000901';
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}` as `0x${string}`;

function frame(n: number, size: number, last: boolean): Frame {
  const data = new Uint8Array(size).map((_, i) => (i * 7 + n) & 0xff);
  return { id: new Uint8Array(16).fill(0xab), number: n, data, isLast: last };
}

describe('batcher L1 transactions', () => {
  const signer = signerFromPrivateKey(KEY);

  it('derives the address of the key', () => {
    expect(signer.address).toBe(privateKeyToAccount(KEY).address.toLowerCase());
    expect(() => signerFromPrivateKey(`0x${'00'.repeat(32)}`)).toThrow(/not a valid/);
  });

  it('intrinsic gas includes the Prague calldata floor', () => {
    expect(intrinsicGas(new Uint8Array(0))).toBe(21_000n);
    expect(intrinsicGas(new Uint8Array(100).fill(1))).toBe(25_000n); // floor 21000 + 400 tokens × 10
    expect(intrinsicGas(new Uint8Array(100))).toBe(22_000n); // floor 21000 + 100 × 10 beats 21000 + 400
  });

  it('calldata: a signed type-2 transaction that carries the frames to the inbox', async () => {
    const tx: TxData = { id: 'x', channelId: 'ab', frames: [frame(0, 300, true)], useBlobs: false };
    const { calldata } = batcherPayload(tx);
    const signed = signTx(
      { chainId: 900n, nonce: 5n, to: INBOX, gasLimit: intrinsicGas(calldata), data: calldata },
      { tipCap: 2n, feeCap: 100n },
      signer,
    );
    const parsed = parseTransaction(hex(signed.raw));
    expect(parsed.type).toBe('eip1559');
    expect(parsed.chainId).toBe(900);
    expect(parsed.nonce).toBe(5);
    expect(parsed.to).toBe(INBOX);
    expect(parsed.maxFeePerGas).toBe(100n);
    expect(parsed.maxPriorityFeePerGas).toBe(2n);
    expect(parseFrames(calldata)).toEqual(tx.frames);
    expect((await recoverTransactionAddress({ serializedTransaction: hex(signed.raw) as never })).toLowerCase()).toBe(
      signer.address,
    );
    expect(signed.hash).toBe(hex(keccak256(signed.raw)));
  });

  for (const cellProofs of [false, true]) {
    it(`blobs (${cellProofs ? 'cell proofs' : 'blob proofs'}): versioned hashes match the sidecar, proofs verify`, () => {
      const tx: TxData = {
        id: 'y',
        channelId: 'ab',
        frames: [frame(0, 130_000, false), frame(1, 5000, true)],
        useBlobs: true,
      };
      const payload = batcherPayload(tx);
      expect(payload.calldata).toHaveLength(0);
      expect(payload.blobs).toHaveLength(2);
      const sidecar = blobSidecar(payload.blobs, cellProofs);
      const signed = signTx(
        { chainId: 900n, nonce: 1n, to: INBOX, gasLimit: 21_000n, data: payload.calldata, sidecar },
        { tipCap: 2n, feeCap: 100n, blobFeeCap: 7n },
        signer,
      );
      const split = splitBlobTx(signed.raw);
      expect(split.sidecar?.version).toBe(cellProofs ? 1 : 0);
      expect(hex(keccak256(split.consensus))).toBe(signed.hash);
      const decoded = decodeTransaction(split.consensus);
      expect(decoded.type).toBe(3);
      expect(decoded.maxFeePerBlobGas).toBe(7n);
      expect(decoded.blobVersionedHashes).toEqual(sidecar.commitments.map((c) => hex(kzgToVersionedHash(c))));
      // The mempool's own sidecar check (counts, hashes, KZG proofs).
      validateSidecar(decoded.blobVersionedHashes as string[], split.sidecar as never);
      // Each blob decodes to one frame of the channel.
      const frames = (split.sidecar?.blobs ?? []).flatMap((b) => parseFrames(decodeBlobData(b)));
      expect(frames).toEqual(tx.frames);
    });
  }

  it('a blob proof that does not match is caught by the same check (the test can fail)', () => {
    const tx: TxData = { id: 'z', channelId: 'ab', frames: [frame(0, 100, true)], useBlobs: true };
    const sidecar = blobSidecar(batcherPayload(tx).blobs, false);
    const bad = { ...sidecar, proofs: [new Uint8Array(48).fill(0xc0)] };
    expect(() =>
      validateSidecar(
        sidecar.versionedHashes.map((h) => hex(h)),
        bad,
      ),
    ).toThrow();
  });
});
