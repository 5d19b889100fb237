// The direct reader of legacy, EIP-2930 and EIP-1559 transactions against the general decoder: on random valid
// encodings both give the same transaction (the reader must not give up on them), and on their random corruptions
// the reader accepts nothing the general decoder refuses and decodeTransaction refuses with the general decoder's
// error.
import { describe, expect, it } from 'vitest';
import { mulberryRng, type Rng } from '../../../../../bench/rng.js';
import { type RlpInput, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { decodeGeneral, decodeTransaction } from '../../../../../src/main/primitives/tx/decode.js';
import { decodeDirect } from '../../../../../src/main/primitives/tx/direct.js';

function randomInt(rng: Rng): bigint {
  switch (rng.int(5)) {
    case 0:
      return 0n;
    case 1:
      return BigInt(rng.int(256));
    case 2:
      return BigInt(rng.int(2 ** 31)) * 4_194_304n + BigInt(rng.int(4_194_304)); // around 2^53
    case 3:
      return (1n << 255n) + BigInt(rng.int(1000));
    default:
      return BigInt(1 + rng.int(1_000_000_000));
  }
}

function randomAccessList(rng: Rng): RlpInput[] {
  return Array.from({ length: rng.int(3) }, () => [
    rng.bytes(20),
    Array.from({ length: rng.int(3) }, () => rng.bytes(32)),
  ]);
}

/** A random type-0, 1 or 2 transaction encoding (signature values random: decoding does not check them). */
function randomTx(rng: Rng): Uint8Array {
  const to = rng.int(5) === 0 ? new Uint8Array(0) : rng.bytes(20);
  const data = rng.bytes(rng.int(3) === 0 ? 60 + rng.int(200) : rng.int(40));
  const sig = [randomInt(rng), randomInt(rng), randomInt(rng)];
  const type = rng.int(3);
  if (type === 0) {
    const v = rng.pick([27n, 28n, 37n, 38n, 2n * 10n + 35n, 0n]);
    return rlpEncode([randomInt(rng), randomInt(rng), randomInt(rng), to, randomInt(rng), data, v, sig[1], sig[2]]);
  }
  const chainId = randomInt(rng);
  const nonce = randomInt(rng);
  const body: RlpInput[] =
    type === 1
      ? [chainId, nonce, randomInt(rng), randomInt(rng), to, randomInt(rng), data, randomAccessList(rng), ...sig]
      : [
          chainId,
          nonce,
          randomInt(rng),
          randomInt(rng),
          randomInt(rng),
          to,
          randomInt(rng),
          data,
          randomAccessList(rng),
          ...sig,
        ];
  const rlp = rlpEncode(body);
  const out = new Uint8Array(rlp.length + 1);
  out[0] = type;
  out.set(rlp, 1);
  return out;
}

function corrupt(rng: Rng, raw: Uint8Array): Uint8Array {
  const out = Uint8Array.from(raw);
  switch (rng.int(4)) {
    case 0:
      return out.subarray(0, rng.int(out.length));
    case 1: {
      const grown = new Uint8Array(out.length + 1 + rng.int(3));
      grown.set(out);
      return grown;
    }
    default:
      out[rng.int(out.length)] = rng.int(256);
      return out;
  }
}

function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (err) {
    return { error: err instanceof Error ? `${(err as { code?: string }).code} ${err.message}` : String(err) };
  }
}

describe('decodeDirect', () => {
  it('decodes random valid transactions as the general decoder does', () => {
    const rng = mulberryRng(17);
    for (let i = 0; i < 3000; i++) {
      const raw = randomTx(rng);
      const direct = decodeDirect(raw);
      expect(direct, `case ${i}`).toBeDefined();
      expect(direct).toEqual(decodeGeneral(raw));
      // A Buffer input (as the database and the wire give) decodes the same.
      expect({ ...decodeDirect(Buffer.from(raw)), raw: undefined }).toEqual({ ...direct, raw: undefined });
    }
  });

  it('accepts no corruption the general decoder refuses, and refusals keep their errors', () => {
    const rng = mulberryRng(91);
    let refused = 0;
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const raw = corrupt(rng, randomTx(rng));
      const general = outcome(() => decodeGeneral(raw));
      const direct = decodeDirect(raw);
      if (direct !== undefined) {
        expect(general, `case ${i}`).toEqual({ ok: direct });
        accepted++;
      } else refused++;
      expect(
        outcome(() => decodeTransaction(raw)),
        `case ${i}`,
      ).toEqual(general);
    }
    // Both kinds must really occur.
    expect(refused).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(150);
  });

  it('refuses every non-canonical form and bad field the general decoder refuses', () => {
    // A hand-built RLP that can spell an item the long way round.
    type Item = Uint8Array | { long: Uint8Array } | { prefixed: number } | Item[] | { longList: Item[] };
    const cat = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
    const enc = (x: Item): Uint8Array => {
      if (x instanceof Uint8Array) return rlpEncode(x);
      if (Array.isArray(x)) {
        const body = cat(x.map(enc));
        return cat([body.length < 56 ? Uint8Array.of(0xc0 + body.length) : Uint8Array.of(0xf8, body.length), body]);
      }
      if ('long' in x) return cat([Uint8Array.of(0xb8, x.long.length), x.long]);
      if ('prefixed' in x) return Uint8Array.of(0x81, x.prefixed);
      const body = cat(x.longList.map(enc));
      return cat([Uint8Array.of(0xf8, body.length), body]);
    };
    const b = (...v: number[]) => Uint8Array.from(v);
    const address = new Uint8Array(20).fill(0xaa);
    const key = new Uint8Array(32).fill(1);
    const sig: Item[] = [b(1), b(2), b(3)];
    const type2 = (fields: Item[]) => cat([b(2), enc(fields)]);
    const good: Item[] = [b(1), b(7), b(1), b(9), b(0x52, 8), address, b(5), b(), [[address, [key]]], ...sig];
    expect(decodeDirect(type2(good))).toBeDefined();
    const bad: Item[][] = [
      good.map((f, i) => (i === 1 ? b(0, 7) : f)), // nonce with a leading zero
      good.map((f, i) => (i === 1 ? b(0) : f)), // zero as 0x00
      good.map((f, i) => (i === 1 ? { long: b(7, 7) } : f)), // short string in the long form
      good.map((f, i) => (i === 1 ? { prefixed: 7 } : f)), // single byte < 0x80 prefixed
      good.map((f, i) => (i === 8 ? { longList: [[address, []]] } : f)), // list under 56 bytes in the long form
      good.map((f, i) => (i === 8 ? [[address, [key], b()]] : f)), // access list entry of three items
      good.map((f, i) => (i === 8 ? [[address.subarray(1), [key]]] : f)), // 19-byte address
      good.map((f, i) => (i === 8 ? [[address, [key.subarray(1)]]] : f)), // 31-byte key
      good.map((f, i) => (i === 5 ? cat([address, b(1)]) : f)), // 21-byte recipient
      good.map((f, i) => (i === 7 ? [b(1)] : f)), // data as a list
      good.slice(0, 11), // a field short
      [...good, b()], // a field too many
    ];
    for (const [i, fields] of bad.entries()) {
      const raw = type2(fields);
      expect(decodeDirect(raw), `case ${i}`).toBeUndefined();
      const general = outcome(() => decodeGeneral(raw));
      expect(general, `case ${i}`).toHaveProperty('error');
      expect(
        outcome(() => decodeTransaction(raw)),
        `case ${i}`,
      ).toEqual(general);
    }
    // Trailing bytes after a legacy transaction, and after a typed one.
    expect(decodeDirect(cat([enc([b(1), b(1), b(1), address, b(), b(), b(27), b(1), b(1)]), b(0)]))).toBeUndefined();
    expect(decodeDirect(cat([type2(good), b(0x80)]))).toBeUndefined();
  });

  it('leaves other types to the general decoder', () => {
    expect(decodeDirect(Uint8Array.of(3, 0xc0))).toBeUndefined();
    expect(decodeDirect(Uint8Array.of(0x7e, 0xc0))).toBeUndefined();
    expect(decodeDirect(new Uint8Array(0))).toBeUndefined();
  });
});
