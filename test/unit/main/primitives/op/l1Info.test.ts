// Calldata vectors from kona (crates/protocol/protocol/src/test_utils.rs: real Bedrock/Ecotone L1-info calldata
// and an Isthmus one with operator fee 0xabcd/0xdcba); selectors checked against their signatures' keccak.
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import {
  batcherHashFromAddress,
  decodeL1InfoCalldata,
  encodeL1InfoCalldata,
  L1_INFO_SELECTORS,
  l1InfoDepositTx,
  l1InfoFormatFor,
} from '../../../../../src/main/primitives/op/l1Info.js';
import { decodeDepositTx, encodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { l1InfoDepositSourceHash } from '../../../../../src/main/primitives/tx/deposit/sourceHash.js';

const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const BATCHER = batcherHashFromAddress(bytes('6887246668a3b87f54deb3b94ba47a6f63f32985'));

const RAW_BEDROCK =
  '015d8eb9000000000000000000000000000000000000000000000000000000000117c4eb0000000000000000000000000000000000000000' +
  '000000000000000065280377000000000000000000000000000000000000000000000000000000026d05d953392012032675be9f94aae5ab' +
  '442de73c5f4fb1bf30fa7dd0d2442239899a40fc000000000000000000000000000000000000000000000000000000000000000400000000' +
  '00000000000000006887246668a3b87f54deb3b94ba47a6f63f3298500000000000000000000000000000000000000000000000000000000' +
  '000000bc00000000000000000000000000000000000000000000000000000000000a6fe0';
const RAW_ECOTONE =
  '440a5e2000000558000c5fc5000000000000000500000000661c277300000000012bec200000000000000000000000000000000000000000' +
  '00000000000000026e9f109900000000000000000000000000000000000000000000000000000000000000011c4c84c50740386c7dc081ef' +
  'ddd644405f04cde73e30a2e381737acce9f5add30000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f32985';
const RAW_ISTHMUS = `098999be${RAW_ECOTONE.slice(8)}0000abcd000000000000dcba`;

const ecotoneInfo = {
  number: 19655712n,
  time: 1713121139n,
  baseFee: 10445852825n,
  blockHash: bytes('1c4c84c50740386c7dc081efddd644405f04cde73e30a2e381737acce9f5add3'),
  sequenceNumber: 5n,
  batcherHash: BATCHER,
  blobBaseFee: 1n,
  blobBaseFeeScalar: 810949n,
  baseFeeScalar: 1368n,
};

describe('L1-info calldata', () => {
  it('selectors are the signatures’ keccak prefixes', () => {
    const sel = (sig: string) => hex(keccak256(new TextEncoder().encode(sig)).subarray(0, 4));
    expect(hex(L1_INFO_SELECTORS.bedrock)).toBe(
      sel('setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)'),
    );
    expect(hex(L1_INFO_SELECTORS.ecotone)).toBe(sel('setL1BlockValuesEcotone()'));
    expect(hex(L1_INFO_SELECTORS.isthmus)).toBe(sel('setL1BlockValuesIsthmus()'));
    expect(hex(L1_INFO_SELECTORS.jovian)).toBe(sel('setL1BlockValuesJovian()'));
  });

  it('Bedrock: decodes and re-encodes kona’s vector', () => {
    const info = decodeL1InfoCalldata(bytes(RAW_BEDROCK));
    expect(info).toMatchObject({
      format: 'bedrock',
      number: 18334955n,
      time: 1697121143n,
      baseFee: 10419034451n,
      sequenceNumber: 4n,
      l1FeeOverhead: 0xbcn,
      l1FeeScalar: 0xa6fe0n,
    });
    expect(hex(info.blockHash)).toBe('392012032675be9f94aae5ab442de73c5f4fb1bf30fa7dd0d2442239899a40fc');
    expect(hex(info.batcherHash)).toBe(hex(BATCHER));
    expect(hex(encodeL1InfoCalldata(info, 'bedrock'))).toBe(RAW_BEDROCK);
  });

  it('Ecotone: decodes and re-encodes kona’s vector', () => {
    const info = decodeL1InfoCalldata(bytes(RAW_ECOTONE));
    expect(info).toEqual({ format: 'ecotone', ...ecotoneInfo });
    expect(hex(encodeL1InfoCalldata(ecotoneInfo, 'ecotone'))).toBe(RAW_ECOTONE);
  });

  it('Isthmus: adds the operator fee', () => {
    const info = decodeL1InfoCalldata(bytes(RAW_ISTHMUS));
    expect(info).toEqual({
      format: 'isthmus',
      ...ecotoneInfo,
      operatorFeeScalar: 0xabcdn,
      operatorFeeConstant: 0xdcban,
    });
    expect(hex(encodeL1InfoCalldata(info, 'isthmus'))).toBe(RAW_ISTHMUS);
  });

  it('Jovian: adds the DA footprint gas scalar at bytes 176..178', () => {
    const full = {
      ...ecotoneInfo,
      operatorFeeScalar: 0xabcdn,
      operatorFeeConstant: 0xdcban,
      daFootprintGasScalar: 400n,
    };
    const data = encodeL1InfoCalldata(full, 'jovian');
    expect(hex(data)).toBe(`3db6be2b${RAW_ISTHMUS.slice(8)}0190`);
    expect(decodeL1InfoCalldata(data)).toEqual({ format: 'jovian', ...full });
  });

  it('rejects bad calldata', () => {
    expect(() => decodeL1InfoCalldata(new Uint8Array(0))).toThrow(/selector/);
    expect(() => decodeL1InfoCalldata(bytes('deadbeef'))).toThrow(/unknown selector/);
    expect(() => decodeL1InfoCalldata(bytes(`${RAW_ECOTONE}00`))).toThrow(/165 bytes, want 164/);
    expect(() => decodeL1InfoCalldata(bytes(RAW_ISTHMUS.slice(0, -2)))).toThrow(/want 176/);
    expect(() => encodeL1InfoCalldata({ ...ecotoneInfo, baseFeeScalar: 1n << 32n }, 'ecotone')).toThrow(/4 bytes/);
  });

  it('keeps the previous format in a fork’s activation block', () => {
    expect(l1InfoFormatFor({ ecotone: false, isthmus: false, jovian: false })).toBe('bedrock');
    expect(l1InfoFormatFor({ ecotone: true, isthmus: false, jovian: false, firstEcotoneBlock: true })).toBe('bedrock');
    expect(l1InfoFormatFor({ ecotone: true, isthmus: false, jovian: false })).toBe('ecotone');
    expect(l1InfoFormatFor({ ecotone: true, isthmus: true, jovian: false, firstIsthmusBlock: true })).toBe('ecotone');
    expect(l1InfoFormatFor({ ecotone: true, isthmus: true, jovian: true, firstJovianBlock: true })).toBe('isthmus');
    expect(l1InfoFormatFor({ ecotone: true, isthmus: true, jovian: true })).toBe('jovian');
  });
});

describe('l1InfoDepositTx', () => {
  it('is a 1M-gas regular deposit from Regolith, a 150M-gas system tx before', () => {
    const tx = l1InfoDepositTx(ecotoneInfo, 'ecotone', true);
    expect(hex(tx.from)).toBe('deaddeaddeaddeaddeaddeaddeaddeaddead0001');
    expect(hex(tx.to as Uint8Array)).toBe('4200000000000000000000000000000000000015');
    expect(tx).toMatchObject({ mint: 0n, value: 0n, gasLimit: 1_000_000n, isSystemTx: false });
    expect(hex(tx.sourceHash)).toBe(hex(l1InfoDepositSourceHash(ecotoneInfo.blockHash, 5n)));
    expect(hex(tx.data)).toBe(RAW_ECOTONE);
    expect(decodeDepositTx(encodeDepositTx(tx))).toEqual(tx);
    expect(l1InfoDepositTx(ecotoneInfo, 'bedrock', false)).toMatchObject({ gasLimit: 150_000_000n, isSystemTx: true });
  });
});
