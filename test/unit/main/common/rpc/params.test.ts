import { describe, expect, it } from 'vitest';
import {
  checkArity,
  decodeAddress,
  decodeBlockNumber,
  decodeBlockNumberOrHash,
  decodeData,
  decodeHash,
  decodeQuantity,
  decodeUint64,
  optionalParam,
  param,
  toQuantity,
} from '../../../../../src/main/common/rpc/params.js';
import { RpcError } from '../../../../../src/main/protocol/jsonrpc/errors.js';

function rpcError(fn: () => unknown): RpcError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RpcError);
    return err as RpcError;
  }
  throw new Error('expected an RpcError');
}

const HASH = `0x${'ab'.repeat(32)}`;

describe('param helpers', () => {
  it('words arity errors as geth', () => {
    expect(rpcError(() => checkArity(['0x1', '0x2', '0x3'], 1, 2)).message).toBe('too many arguments, want at most 2');
    expect(rpcError(() => checkArity([], 1, 2)).message).toBe('missing value for required argument 0');
    expect(rpcError(() => checkArity(['0x1', null], 2)).message).toBe('missing value for required argument 1');
    expect(rpcError(() => checkArity([], 1)).code).toBe(-32602);
  });

  it('prefixes decoder failures with the argument index', () => {
    const err = rpcError(() => param(['0x1', 'bad'], 1, decodeUint64));
    expect(err.code).toBe(-32602);
    expect(err.message).toBe(
      'invalid argument 1: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Uint64',
    );
    expect(optionalParam([], 0, decodeUint64)).toBeUndefined();
    expect(optionalParam([null], 0, decodeUint64)).toBeUndefined();
  });

  it('decodes quantities with hexutil’s rules', () => {
    expect(decodeQuantity('0x0')).toBe(0n);
    expect(decodeQuantity('0xff')).toBe(255n);
    expect(decodeUint64('')).toBe(0n);
    const msg = (v: unknown) => rpcError(() => param([v], 0, decodeQuantity)).message;
    expect(msg('0x')).toMatch(/hex string "0x"/);
    expect(msg('0x01')).toMatch(/hex number with leading zero digits/);
    expect(msg('0xzz')).toMatch(/invalid hex string into Go value of type \*hexutil.Big/);
    expect(msg(12)).toMatch(/cannot unmarshal non-string into Go value of type \*hexutil.Big/);
    expect(msg(`0x1${'0'.repeat(64)}`)).toMatch(/hex number > 256 bits/);
    expect(rpcError(() => param([`0x1${'0'.repeat(16)}`], 0, decodeUint64)).message).toMatch(/hex number > 64 bits/);
  });

  it('decodes data, addresses and hashes', () => {
    expect(decodeData('0x0102')).toEqual(Uint8Array.from([1, 2]));
    expect(decodeData('')).toEqual(new Uint8Array(0));
    expect(() => decodeData('0x123')).toThrow(/odd length/);
    expect(decodeAddress(`0x${'AB'.repeat(20)}`)).toBe(`0x${'ab'.repeat(20)}`);
    expect(() => decodeAddress('0x1234')).toThrow('hex string has length 4, want 40 for common.Address');
    expect(decodeHash(HASH)).toBe(HASH);
    expect(() => decodeHash(`0x${'zz'.repeat(32)}`)).toThrow(/invalid hex string into Go value of type common.Hash/);
  });

  it('decodes block numbers and EIP-1898 selectors', () => {
    expect(decodeBlockNumber('latest')).toBe('latest');
    expect(decodeBlockNumber('0x10')).toBe(16n);
    expect(() => decodeBlockNumber('0x8000000000000000')).toThrow('block number larger than int64');
    expect(() => decodeBlockNumber(5)).toThrow('hex string without 0x prefix');
    expect(decodeBlockNumberOrHash('safe')).toEqual({ blockNumber: 'safe', requireCanonical: false });
    expect(decodeBlockNumberOrHash('0x2')).toEqual({ blockNumber: 2n, requireCanonical: false });
    expect(decodeBlockNumberOrHash(HASH)).toEqual({ blockHash: HASH, requireCanonical: false });
    expect(decodeBlockNumberOrHash({ blockHash: HASH, requireCanonical: true })).toEqual({
      blockHash: HASH,
      requireCanonical: true,
    });
    expect(decodeBlockNumberOrHash({ blockNumber: '0x1' })).toEqual({ blockNumber: 1n, requireCanonical: false });
    expect(() => decodeBlockNumberOrHash({ blockNumber: '0x1', blockHash: HASH })).toThrow(
      'cannot specify both BlockHash and BlockNumber, choose one or the other',
    );
    expect(() => decodeBlockNumberOrHash({})).toThrow('must specify either BlockHash or BlockNumber');
  });

  it('encodes quantities', () => {
    expect(toQuantity(0n)).toBe('0x0');
    expect(toQuantity(4096)).toBe('0x1000');
    expect(() => toQuantity(-1)).toThrow(RangeError);
  });
});
