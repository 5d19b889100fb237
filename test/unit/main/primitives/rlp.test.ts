// tern's RLP encoder and decoder against @ethereumjs/rlp on random nested inputs: the same bytes for every input
// kind the encoder accepts, lengths around the 55/56 header boundary and past 255/65535 included; the same items,
// and the same verdict, for the decoder on valid encodings and on every kind of corruption of them.
import { RLP } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../bench/rng.js';
import {
  bigintToBytes,
  bytesToBigint,
  type RlpDecoded,
  type RlpInput,
  rlpDecode,
  rlpEncode,
  rlpEncodeTyped,
} from '../../../../src/main/primitives/rlp.js';

/** The shared xorshift32 stream as a function, so a failure reproduces from its seed. */
function rng(seed: number): () => number {
  const stream = xorshiftRng(seed);
  return () => stream.next();
}

const LENGTHS = [0, 1, 1, 1, 2, 20, 32, 54, 55, 56, 57, 200, 255, 256, 300];

function randomBytes(next: () => number): Uint8Array {
  const len = LENGTHS[next() % LENGTHS.length] as number;
  const b = new Uint8Array(len);
  for (let i = 0; i < len; i++) b[i] = next() & 0xff;
  // Single bytes on both sides of 0x80, and zero.
  if (len === 1) b[0] = [0, 0x7f, 0x80, 0xff, next() & 0xff][next() % 5] as number;
  return b;
}

function randomScalar(next: () => number): RlpInput {
  switch (next() % 9) {
    case 0:
      return next() % 300;
    case 1:
      return next() * 0x200000 + (next() % 0x200000); // up to 2^53
    case 2:
      return BigInt(next() % 300);
    case 3: {
      let n = 0n;
      const words = next() % 10;
      for (let i = 0; i < words; i++) n = (n << 32n) | BigInt(next());
      return n;
    }
    case 4:
      return next() % 2 === 0 ? null : undefined;
    case 5:
      return `0x${Buffer.from(randomBytes(next)).toString('hex')}`;
    case 6:
      return 'dog';
    default:
      return randomBytes(next);
  }
}

function randomItem(next: () => number, depth: number): RlpInput {
  if (depth > 0 && next() % 3 === 0) {
    const n = depth > 2 ? ([0, 1, 2, 3, 5, 17, 60][next() % 7] as number) : ([0, 1, 2, 3][next() % 4] as number);
    return Array.from({ length: n }, () => randomItem(next, depth - 1));
  }
  return randomScalar(next);
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('rlpEncode', () => {
  it('encodes 3,000 random nested inputs byte for byte as @ethereumjs/rlp does', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const input = randomItem(rng(seed), 4);
      const want = hex(RLP.encode(input as Parameters<typeof RLP.encode>[0]));
      expect(hex(rlpEncode(input)), `seed ${seed}`).toBe(want);
    }
  });

  it('encodes the length boundaries of strings and lists', () => {
    for (const len of [0, 1, 55, 56, 255, 256, 65535, 65536, 1 << 24]) {
      const s = new Uint8Array(len).fill(0xaa);
      expect(hex(rlpEncode(s))).toBe(hex(RLP.encode(s)));
      const list = Array.from({ length: len > 70_000 ? 1 : len }, () => new Uint8Array([1]));
      if (len > 70_000) list[0] = s;
      expect(hex(rlpEncode(list))).toBe(hex(RLP.encode(list)));
    }
    expect(hex(rlpEncode(new Uint8Array(56)))).toBe(`b838${'00'.repeat(56)}`);
    expect(hex(rlpEncode([]))).toBe('c0');
    expect(hex(rlpEncode(new Uint8Array([0x80])))).toBe('8180');
    expect(hex(rlpEncode(new Uint8Array([0x7f])))).toBe('7f');
    expect(hex(rlpEncode(0))).toBe('80');
    expect(hex(rlpEncode(0n))).toBe('80');
    expect(hex(rlpEncode(127))).toBe('7f');
    expect(hex(rlpEncode(128n))).toBe('8180');
    expect(hex(rlpEncode(Number.MAX_SAFE_INTEGER))).toBe('871fffffffffffff');
    expect(hex(rlpEncode(2n ** 256n - 1n))).toBe(`a0${'ff'.repeat(32)}`);
  });

  it('writes a typed envelope as the type byte followed by the RLP', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const input = randomItem(rng(seed), 3);
      const body = RLP.encode(input as Parameters<typeof RLP.encode>[0]);
      expect(hex(rlpEncodeTyped(seed % 5, input))).toBe(`0${seed % 5}${hex(body)}`);
    }
  });

  it('returns a fresh buffer, never its input', () => {
    const b = new Uint8Array([5]);
    expect(rlpEncode(b)).not.toBe(b);
  });

  it('refuses what cannot be encoded, as @ethereumjs/rlp does', () => {
    expect(() => rlpEncode(-1)).toThrow();
    expect(() => rlpEncode(-1n)).toThrow();
    expect(() => rlpEncode(1.5)).toThrow();
    expect(() => rlpEncode([new Uint8Array(1), -3])).toThrow();
  });
});

describe('bigintToBytes', () => {
  it('writes minimal big-endian bytes on both sides of 2^53', () => {
    for (const n of [1n, 255n, 256n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 64n + 5n]) {
      const hexN = n.toString(16);
      expect(hex(bigintToBytes(n))).toBe(hexN.length % 2 ? `0${hexN}` : hexN);
    }
    expect(bigintToBytes(0n).length).toBe(0);
    expect(() => bigintToBytes(-1n)).toThrow(RangeError);
  });
});

/** What @ethereumjs/rlp makes of `data`: the decoded item, or 'invalid'. */
function ejsDecode(data: Uint8Array): string {
  try {
    return show(RLP.decode(data) as RlpDecoded);
  } catch {
    return 'invalid';
  }
}

function ternDecode(data: Uint8Array): string {
  try {
    return show(rlpDecode(data));
  } catch (err) {
    expect((err as { code?: string }).code).toBe('RLP_INVALID');
    return 'invalid';
  }
}

function show(d: RlpDecoded): string {
  return Array.isArray(d) ? `[${d.map(show).join(',')}]` : hex(d);
}

describe('rlpDecode', () => {
  it('decodes random encodings, and every truncation and byte change of them, as @ethereumjs/rlp does', () => {
    let invalid = 0;
    let valid = 0;
    for (let seed = 1; seed <= 1500; seed++) {
      const next = rng(seed);
      const good = rlpEncode(randomItem(next, 4));
      const cases: Uint8Array[] = [good];
      if (good.length > 1) {
        cases.push(good.subarray(0, next() % good.length)); // truncated
        cases.push(Uint8Array.from([...good, next() & 0xff])); // trailing byte
      }
      for (let k = 0; k < 4; k++) {
        const bad = good.slice();
        // Mostly header bytes: the first few and random ones.
        const at = k < 2 ? next() % Math.min(4, bad.length) : next() % bad.length;
        bad[at] = next() & 0xff;
        cases.push(bad);
      }
      for (const c of cases) {
        if (c.length === 0) continue;
        const want = ejsDecode(c);
        expect(ternDecode(c), `seed ${seed} input ${hex(c).slice(0, 80)}`).toBe(want);
        if (want === 'invalid') invalid++;
        else valid++;
      }
    }
    // Both verdicts were exercised in earnest.
    expect(invalid).toBeGreaterThan(1000);
    expect(valid).toBeGreaterThan(1500);
  });

  it('rejects the non-canonical and short forms by name', () => {
    const bad = [
      '8100',
      '817f',
      'b800',
      'b80100',
      `b837${'00'.repeat(55)}`,
      'f800',
      `f837${'00'.repeat(55)}`,
      `b90038${'00'.repeat(56)}`,
      `f90038${'00'.repeat(56)}`,
      'c1',
      'c3018081',
      '8201',
      'b838',
      '0000',
      'c0c0',
    ];
    for (const h of bad) {
      expect(() => rlpDecode(Buffer.from(h, 'hex')), h).toThrow(/invalid RLP/);
      expect(ejsDecode(Buffer.from(h, 'hex')), h).toBe('invalid');
    }
    expect(() => rlpDecode(new Uint8Array(0))).toThrow(/invalid RLP/);
  });

  it('returns copies, not views of its input', () => {
    const data = Uint8Array.from(Buffer.from('c48261627f', 'hex'));
    const d = rlpDecode(data) as Uint8Array[];
    expect(d.map(hex)).toEqual(['6162', '7f']);
    data.fill(0);
    expect(d.map(hex)).toEqual(['6162', '7f']);
  });

  it('refuses lists nested past the stack with an RLP error, not a crash', () => {
    const depth = 200_000;
    const data = new Uint8Array(depth).fill(0xc1);
    data[depth - 1] = 0xc0;
    expect(() => rlpDecode(data)).toThrow(/invalid RLP/);
  });
});

describe('bytesToBigint', () => {
  it('reads every length from 1 to 40 bytes', () => {
    const next = rng(99);
    for (let len = 1; len <= 40; len++) {
      const b = new Uint8Array(len);
      for (let i = 0; i < len; i++) b[i] = next() & 0xff;
      b[0] = b[0] || 1;
      expect(bytesToBigint(b)).toBe(BigInt(`0x${hex(b)}`));
    }
    expect(bytesToBigint(new Uint8Array(0))).toBe(0n);
    expect(bytesToBigint(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff))).toBe(2n ** 48n - 1n);
    expect(() => bytesToBigint(Uint8Array.of(0, 1))).toThrow(/leading zero/);
  });
});
