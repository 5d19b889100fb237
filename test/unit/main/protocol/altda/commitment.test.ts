import { describe, expect, it } from 'vitest';
import {
  commitmentHex,
  commitmentTxData,
  commitmentTypeFromName,
  decodeCommitment,
  decodeCommitmentTxData,
  encodeCommitment,
  GENERIC_COMMITMENT,
  genericCommitment,
  KECCAK_COMMITMENT,
  keccakCommitment,
  MAX_INPUT_SIZE,
  verifyCommitment,
} from '../../../../../src/main/protocol/altda/commitment.js';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/^0x/, ''), 'hex'));
const KECCAK_EMPTY = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

describe('alt-DA commitments (specs experimental/alt-da.md "Example Commitments")', () => {
  it('type 0: keccak256 of the input, tx data 0x01 0x00 ++ hash', () => {
    const c = keccakCommitment(new Uint8Array());
    expect(c.type).toBe(KECCAK_COMMITMENT);
    expect(Buffer.from(commitmentTxData(c)).toString('hex')).toBe(`0100${KECCAK_EMPTY}`);
    expect(commitmentHex(c)).toBe(`0x00${KECCAK_EMPTY}`);
    expect(decodeCommitmentTxData(hex(`0100${KECCAK_EMPTY}`))).toEqual(c);
  });

  it.each([
    ['EigenDA', 0x00],
    ['Avail', 0x0a],
    ['Celestia', 0x0c],
  ])('type 1 (%s, da_layer_byte %i): opaque payload kept byte for byte', (_name, layer) => {
    const payload = hex('deadbeef0102');
    const txData = Uint8Array.from([1, 1, layer, ...payload]);
    const c = decodeCommitmentTxData(txData);
    expect(c.type).toBe(GENERIC_COMMITMENT);
    expect(c.body[0]).toBe(layer);
    expect(commitmentTxData(c)).toEqual(txData);
    // The DA server's verification; the node accepts whatever it returns.
    expect(verifyCommitment(c, hex('00'))).toBe(true);
  });

  it('keccak verification fails for other data', () => {
    const c = keccakCommitment(hex('00aabb'));
    expect(verifyCommitment(c, hex('00aabb'))).toBe(true);
    expect(verifyCommitment(c, hex('00aabc'))).toBe(false);
  });

  it('rejects keccak commitments that are not 32 bytes, unknown types, empty input and other versions', () => {
    expect(() => decodeCommitment(new TextEncoder().encode('abcdefghijklmnopqrstuvwxyz012345'))).toThrow(/type 97/);
    expect(() => decodeCommitment(hex(`00${KECCAK_EMPTY}00`))).toThrow(/33 bytes, want 32/);
    expect(() => decodeCommitment(hex(`00${KECCAK_EMPTY.slice(2)}`))).toThrow(/31 bytes/);
    expect(() => decodeCommitment(hex('01'))).toThrow(/empty generic/);
    expect(() => decodeCommitment(hex('09aa'))).toThrow(/unknown commitment type 9/);
    expect(() => decodeCommitment(new Uint8Array())).toThrow(/empty/);
    expect(() => decodeCommitmentTxData(hex(`0000${KECCAK_EMPTY}`))).toThrow(/version 0/);
  });

  it('round-trips the encoding and names the rollup-config types', () => {
    const g = genericCommitment(hex('0c0102'));
    expect(decodeCommitment(encodeCommitment(g))).toEqual(g);
    expect(commitmentTypeFromName('KeccakCommitment')).toBe(KECCAK_COMMITMENT);
    expect(commitmentTypeFromName('GenericCommitment')).toBe(GENERIC_COMMITMENT);
    expect(() => commitmentTypeFromName('Keccak')).toThrow(/unknown commitment type/);
    expect(MAX_INPUT_SIZE).toBe(131072 - 400);
  });
});
