// ethereum/tests RLPTests: encoding of every valid case, strict rejection of every invalid one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RlpDecoded, type RlpInput, rlpDecode, rlpEncode } from '../../src/main/primitives/rlp.js';
import { FIXTURES } from '../helpers/paths.js';

const DIR = join(FIXTURES, 'ethereum-tests/RLPTests');
type Case = { in: unknown; out: string };

function load(file: string): Record<string, Case> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, Case>;
}

function toInput(v: unknown): RlpInput {
  if (Array.isArray(v)) return v.map(toInput);
  if (typeof v === 'number') return BigInt(v);
  if (typeof v === 'string' && v.startsWith('#')) return BigInt(v.slice(1));
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  throw new Error(`unknown RLP test input ${JSON.stringify(v)}`);
}

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

function reencode(d: RlpDecoded): Uint8Array {
  return rlpEncode(d as RlpInput);
}

describe('RLPTests/rlptest.json', () => {
  for (const [name, c] of Object.entries(load(join(DIR, 'rlptest.json')))) {
    it(name, () => {
      expect(hex(rlpEncode(toInput(c.in)))).toBe(c.out.toLowerCase());
      expect(hex(reencode(rlpDecode(bytes(c.out))))).toBe(c.out.toLowerCase());
    });
  }
});

describe('RLPTests/invalidRLPTest.json', () => {
  for (const [name, c] of Object.entries(load(join(DIR, 'invalidRLPTest.json')))) {
    it(name, () => {
      expect(c.in).toBe('INVALID');
      expect(() => rlpDecode(bytes(c.out))).toThrow(/invalid RLP/);
    });
  }
});

describe('RLPTests/RandomRLPTests', () => {
  for (const file of readdirSync(join(DIR, 'RandomRLPTests'))) {
    for (const [name, c] of Object.entries(load(join(DIR, 'RandomRLPTests', file)))) {
      it(`${file} ${name}`, () => {
        if (c.in === 'VALID') expect(hex(reencode(rlpDecode(bytes(c.out))))).toBe(c.out.toLowerCase());
        else if (c.in === 'INVALID') expect(() => rlpDecode(bytes(c.out))).toThrow();
        else throw new Error(`unknown case kind ${JSON.stringify(c.in)}`);
      });
    }
  }
});
