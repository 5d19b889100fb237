// Serving eth/68 requests with geth's rules: GetBlockHeaders by number and by hash, skip and reverse, at most
// 1024 headers, the 2 MiB soft limit (the header crossing it is the last), a non-canonical origin served alone,
// stops at the chain's ends; bodies and receipts skip unknown hashes; pooled transactions in list form.
import { describe, expect, it } from 'vitest';
import {
  type ServeSource,
  serveBodies,
  serveHeaders,
  servePooledTransactions,
  serveReceipts,
  wrapTx,
} from '../../../../../src/main/exec/p2p/ethServe.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { rlpEncode } from '../../../../../src/main/primitives/rlp.js';

function chain(n: number, headerBytes = 16) {
  const headers = Array.from({ length: n }, (_, i) => rlpEncode([i, new Uint8Array(headerBytes)]));
  const hashes = headers.map((h) => keccak256(h));
  const side = rlpEncode(['side', 5]);
  const sideHash = keccak256(side);
  const index = new Map(hashes.map((h, i) => [Buffer.from(h).toString('hex'), i]));
  index.set(Buffer.from(sideHash).toString('hex'), 5);
  const src: ServeSource = {
    headerNumber: (h) => index.get(Buffer.from(h).toString('hex')),
    canonicalHash: (i) => hashes[i],
    headerRlp: (i, h) =>
      Buffer.from(h).equals(Buffer.from(sideHash))
        ? side
        : Buffer.from(h).equals(Buffer.from(hashes[i] ?? []))
          ? headers[i]
          : undefined,
    bodyRlp: (i) => rlpEncode([[], [], [i]]),
    receiptsRlp: (i) => (i === 3 ? undefined : rlpEncode([[i]])),
    pooledTx: (h) => (h[0] === 1 ? Uint8Array.of(0x02, 0xc1, 0x05) : h[0] === 2 ? rlpEncode([1, 2]) : undefined),
  };
  return { src, headers, hashes, sideHash, side };
}

describe('serveHeaders', () => {
  const c = chain(2000);
  const q = (origin: bigint | Uint8Array, amount: bigint, skip = 0n, reverse = false) =>
    serveHeaders(c.src, { requestId: 1n, origin, amount, skip, reverse });

  it('walks forward and backward with skip, from a number or a hash', () => {
    expect(q(10n, 3n, 4n)).toEqual([c.headers[10], c.headers[15], c.headers[20]]);
    expect(q(c.hashes[10] as Uint8Array, 3n, 0n, true)).toEqual([c.headers[10], c.headers[9], c.headers[8]]);
    expect(q(1n, 5n, 0n, true)).toEqual([c.headers[1], c.headers[0]]);
    expect(q(1998n, 5n)).toEqual([c.headers[1998], c.headers[1999]]);
    expect(q(5000n, 1n)).toEqual([]);
    expect(q(new Uint8Array(32), 1n)).toEqual([]);
    expect(q(0n, 2n, (1n << 64n) - 1n)).toEqual([c.headers[0]]);
  });

  it('serves at most 1024 headers', () => {
    expect(q(0n, 5000n)).toHaveLength(1024);
  });

  it('serves a non-canonical origin alone', () => {
    expect(q(c.sideHash, 10n)).toEqual([c.side]);
  });

  it('stops after the header that crosses 2 MiB', () => {
    const big = chain(300, 10_000);
    const out = serveHeaders(big.src, { requestId: 1n, origin: 0n, amount: 300n, skip: 0n, reverse: false });
    const size = (big.headers[0] as Uint8Array).length;
    expect(out).toHaveLength(Math.ceil((2 * 1024 * 1024) / size));
  });
});

describe('bodies, receipts and pooled transactions', () => {
  const c = chain(10);
  it('skip unknown hashes', () => {
    expect(serveBodies(c.src, [c.hashes[2] as Uint8Array, new Uint8Array(32), c.hashes[4] as Uint8Array])).toEqual([
      rlpEncode([[], [], [2]]),
      rlpEncode([[], [], [4]]),
    ]);
  });
  it('answer an empty receipts list for a known block without receipts', () => {
    expect(serveReceipts(c.src, [c.hashes[3] as Uint8Array, c.hashes[4] as Uint8Array])).toEqual([
      rlpEncode([]),
      rlpEncode([[4]]),
    ]);
  });
  it('wrap typed transactions as strings and keep legacy lists', () => {
    const typed = new Uint8Array(32).fill(1);
    const legacy = new Uint8Array(32).fill(2);
    expect(servePooledTransactions(c.src, [typed, new Uint8Array(32), legacy])).toEqual([
      Uint8Array.of(0x83, 0x02, 0xc1, 0x05),
      rlpEncode([1, 2]),
    ]);
    expect(wrapTx(new Uint8Array(60).fill(2))[0]).toBe(0xb8);
  });
});
