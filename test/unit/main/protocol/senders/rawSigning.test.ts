// The raw-bytes signing path against the full decode (signingData + recoverAddress) on ethereum/tests
// TransactionTests (valid and malformed transactions of every type) and on byte-level mutations of them: wherever
// the raw path answers it must give the full path's digest, r‖s and recovery id, it must answer for every signed
// transaction the full path accepts, and recoverSender must give the same sender or the same error either way.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asList, type RlpDecoded, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { rawSignature } from '../../../../../src/main/protocol/senders/rawSigning.js';
import {
  recoverAddress,
  recoverSender,
  SECP256K1_N,
  type SigningData,
  signingData,
} from '../../../../../src/main/protocol/senders/recover.js';
import { FIXTURES } from '../../../../helpers/paths.js';

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsonFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : [],
  );
}

const corpus: Uint8Array[] = [];
// The execution-apis chain's transactions (legacy, access-list, dynamic-fee and blob transactions of one client).
for (const raw of rlpItems(readFileSync(join(FIXTURES, 'execution-apis/tests/chain.rlp')))) {
  // Plain copies: the decoder hands out Buffers here, whose slice() is a view the mutations below would write.
  for (const t of asList(rlpDecode(raw), 'block')[1] as RlpDecoded[])
    corpus.push(Uint8Array.from(t instanceof Uint8Array ? t : rlpEncode(t as Parameters<typeof rlpEncode>[0])));
}
const fromChain = corpus.length;
for (const file of jsonFiles(join(FIXTURES, 'ethereum-tests', 'TransactionTests'))) {
  for (const test of Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, { txbytes?: string }>)) {
    if (typeof test.txbytes === 'string') corpus.push(Uint8Array.from(Buffer.from(test.txbytes.slice(2), 'hex')));
  }
}

/** Deterministic mutations: flipped bytes, truncations, appended bytes, edited header bytes. */
function mutations(raw: Uint8Array, seed: number): Uint8Array[] {
  let x = seed || 1;
  const rand = (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const out: Uint8Array[] = [];
  for (let k = 0; k < 6 && raw.length > 0; k++) {
    const m = raw.slice();
    m[rand(m.length)] = rand(256);
    out.push(m);
  }
  out.push(raw.subarray(0, raw.length - 1), Uint8Array.of(...raw, 0));
  for (const at of [0, 1, 2]) {
    if (at >= raw.length) continue;
    for (const d of [-1, 1]) {
      const m = raw.slice();
      m[at] = ((m[at] as number) + d) & 0xff;
      out.push(m);
    }
  }
  return out;
}

/** The full path's answer: digest and signature values within recoverAddress's bounds, or why not. */
function full(raw: Uint8Array): { ok: true; d: SigningData } | { ok: false; message: string } {
  try {
    const d = signingData(raw);
    if (d.r === 0n || d.r >= SECP256K1_N || d.s === 0n || d.s > SECP256K1_N / 2n || d.recid > 1)
      return { ok: false, message: 'invalid transaction v, r, s values' };
    return { ok: true, d };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** A list header (canonical) over `body`. */
const listOf = (body: Uint8Array) =>
  body.length < 56
    ? Uint8Array.of(0xc0 + body.length, ...body)
    : Uint8Array.of(0xf9, body.length >> 8, body.length & 0xff, ...body);

/**
 * Valid transactions with one part encoded in a form the strict decoder rejects: a byte < 0x80 behind a 0x81
 * prefix, a short string or the list under a long-form header, a length with a leading zero byte.
 */
function nonCanonical(raw: Uint8Array): Uint8Array[] {
  const typed = (raw[0] as number) < 0xc0;
  const fields = asList(rlpDecode(typed ? raw.subarray(1) : raw), 'tx');
  const wrap = (list: Uint8Array) => (typed ? Uint8Array.of(raw[0] as number, ...list) : list);
  const enc = (f: RlpDecoded) => rlpEncode(f as Parameters<typeof rlpEncode>[0]);
  const withField = (i: number, item: Uint8Array) =>
    wrap(listOf(Uint8Array.from(Buffer.concat(fields.map((f, j) => (j === i ? item : enc(f)))))));
  const out: Uint8Array[] = [];
  fields.forEach((f, i) => {
    if (!(f instanceof Uint8Array)) return;
    if (f.length === 1 && (f[0] as number) < 0x80) out.push(withField(i, Uint8Array.of(0x81, f[0] as number)));
    if (f.length < 56) out.push(withField(i, Uint8Array.of(0xb8, f.length, ...f)));
  });
  const body = Buffer.concat(fields.map(enc));
  if (body.length < 56) out.push(wrap(Uint8Array.of(0xf8, body.length, ...body)));
  else out.push(wrap(Uint8Array.of(0xfa, 0, body.length >> 8, body.length & 0xff, ...body)));
  return out;
}

const word = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
const senderOrError = (raw: Uint8Array) => {
  try {
    return Buffer.from(recoverSender(raw)).toString('hex');
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
};

describe('rawSignature', () => {
  const canonical = corpus.filter((raw) => full(raw).ok);
  const inputs = [...corpus.flatMap((raw, i) => [raw, ...mutations(raw, i + 1)]), ...canonical.flatMap(nonCanonical)];

  it('reads both corpora, with every signed transaction type of the chain', () => {
    expect(fromChain).toBeGreaterThan(50);
    expect(corpus.length - fromChain).toBeGreaterThan(200);
    const types = new Set(corpus.slice(0, fromChain).map((t) => ((t[0] as number) >= 0xc0 ? 0 : t[0])));
    expect([...types].sort()).toEqual([0, 1, 2, 3]);
  });

  it('gives the full decode’s digest, signature and recovery id wherever it answers, and answers for every valid transaction', () => {
    let answered = 0;
    let valid = 0;
    for (const raw of inputs) {
      const f = full(raw);
      const r = rawSignature(raw);
      // Legacy chain ids past 2^40 (v beyond 6 bytes) are left to the full path.
      const legacyBigChain = (raw[0] as number) >= 0xc0 && f.ok && (f.d.chainId ?? 0n) >= 1n << 40n;
      if (f.ok && !legacyBigChain) {
        valid++;
        expect(r, Buffer.from(raw).toString('hex')).toBeDefined();
      }
      if (r === undefined) continue;
      answered++;
      expect(f.ok, Buffer.from(raw).toString('hex')).toBe(true);
      if (!f.ok) continue;
      expect(Buffer.from(r.hash).toString('hex')).toBe(Buffer.from(f.d.hash).toString('hex'));
      expect(Buffer.from(r.sig).toString('hex')).toBe(Buffer.concat([word(f.d.r), word(f.d.s)]).toString('hex'));
      expect(r.recid).toBe(f.d.recid);
    }
    expect(valid).toBeGreaterThan(100);
    expect(answered).toBe(valid);
  });

  it('leaves recoverSender’s senders and errors as the full decode gives them', () => {
    for (const raw of inputs) {
      const f = full(raw);
      let expected = `error: ${f.ok ? '' : f.message}`;
      try {
        if (f.ok) expected = Buffer.from(recoverAddress(f.d)).toString('hex');
      } catch (err) {
        expected = `error: ${(err as Error).message}`; // a key that does not recover
      }
      expect(senderOrError(raw), Buffer.from(raw).toString('hex')).toBe(expected);
    }
  });

  it('leaves s above n/2 and r at n to the full path (EIP-2, range checks)', () => {
    const valid = corpus.find((raw) => full(raw).ok && (raw[0] as number) >= 0xc0) as Uint8Array;
    const d = signingData(valid);
    // Re-sign nothing: swap s for n − s (the same signature's high-s twin) by editing the encoding's last 32 bytes.
    const highS = valid.slice();
    highS.set(word(SECP256K1_N - d.s), highS.length - 32);
    expect(rawSignature(highS)).toBeUndefined();
    expect(senderOrError(highS)).toBe('error: invalid transaction v, r, s values');
  });
});
