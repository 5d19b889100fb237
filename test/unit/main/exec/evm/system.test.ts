import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  depositRequestData,
  depositRequests,
  EMPTY_REQUESTS_HASH,
  requestsHash,
} from '../../../../../src/main/exec/evm/system.js';

const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const word = (v: number) => Uint8Array.from({ length: 32 }, (_, i) => (i >= 28 ? (v >>> ((31 - i) * 8)) & 0xff : 0));

/** ABI encoding of DepositEvent(bytes pubkey, bytes wc, bytes amount, bytes signature, bytes index). */
function depositEvent(fill: number): Uint8Array {
  const sizes = [48, 32, 8, 96, 8];
  const head = [160, 256, 320, 384, 512].map(word);
  const tails = sizes.map((n, i) => {
    const padded = new Uint8Array(Math.ceil(n / 32) * 32);
    padded.fill(fill + i, 0, n);
    return Buffer.concat([word(n), padded]);
  });
  return Buffer.concat([...head, ...tails]);
}

describe('EIP-7685 requests', () => {
  it('hashes no requests to sha256 of nothing', () => {
    expect(requestsHash([])).toEqual(EMPTY_REQUESTS_HASH);
    expect(
      requestsHash([
        [0, new Uint8Array(0)],
        [1, new Uint8Array(0)],
      ]),
    ).toEqual(EMPTY_REQUESTS_HASH);
    expect(Buffer.from(EMPTY_REQUESTS_HASH).toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('hashes sha256(type ‖ data) of each nonempty type, skipping empty ones', () => {
    const a = Uint8Array.of(1, 2, 3);
    const c = Uint8Array.of(9);
    expect(
      requestsHash([
        [0, a],
        [1, new Uint8Array(0)],
        [2, c],
      ]),
    ).toEqual(sha(sha(Uint8Array.of(0), a), sha(Uint8Array.of(2), c)));
  });

  it('extracts EIP-6110 deposit requests from the deposit contract logs only', () => {
    const data = depositEvent(0x10);
    const request = depositRequestData(data);
    expect(request.length).toBe(192);
    expect(request.subarray(0, 48).every((b) => b === 0x10)).toBe(true);
    expect(request.subarray(48, 80).every((b) => b === 0x11)).toBe(true);
    expect(request.subarray(184, 192).every((b) => b === 0x14)).toBe(true);
    const contract = '0x00000000219ab540356cbb839cbe05303d7705fa';
    const topic = Uint8Array.from(
      Buffer.from('649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5', 'hex'),
    );
    const at = Uint8Array.from(Buffer.from(contract.slice(2), 'hex'));
    const logs = [
      { address: at, topics: [topic], data },
      { address: new Uint8Array(20), topics: [topic], data },
      { address: at, topics: [new Uint8Array(32)], data },
      { address: at, topics: [topic], data: depositEvent(0x20) },
    ];
    const out = depositRequests(logs, contract);
    expect(out.length).toBe(384);
    expect(out[192]).toBe(0x20);
  });

  it('rejects a malformed deposit event', () => {
    const bad = depositEvent(1);
    bad[31] = 0; // first offset 160 → 0
    expect(() => depositRequestData(bad)).toThrow(/bad offset/);
    expect(() => depositRequestData(bad.subarray(0, 575))).toThrow(/576/);
  });
});
