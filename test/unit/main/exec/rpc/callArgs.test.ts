// The call object (geth's TransactionArgs) and the pure parts of calls: field decoding, CallDefaults, ToMessage,
// revert reasons (abi.UnpackRevert) and the base fee math of the fee history.
import { describe, expect, it } from 'vitest';
import { ParamError } from '../../../../../src/main/common/rpc/params.js';
import { revertError, unpackRevert, vmErrorMessage } from '../../../../../src/main/exec/evm/call.js';
import { callDefaults, toMessage } from '../../../../../src/main/exec/evm/callMessage.js';
import { decodeCallArgs } from '../../../../../src/main/exec/rpc/callArgs.js';
import { decodeStorageKey } from '../../../../../src/main/exec/rpc/eth.js';
import { childBaseFee, effectiveTip } from '../../../../../src/main/exec/rpc/gasPrice.js';
import { ETHEREUM_BASE_FEE_PARAMS, nextBaseFee } from '../../../../../src/main/primitives/block/fees.js';
import type { Header } from '../../../../../src/main/primitives/block/header.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';
import type { DecodedTx } from '../../../../../src/main/primitives/tx/decode.js';
import { RpcError } from '../../../../../src/main/protocol/jsonrpc/errors.js';

const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

describe('call arguments', () => {
  it('decodes every field, preferring input over data', () => {
    const a = decodeCallArgs({
      from: '0x14e46043e63d0e3cdcf2530519f4cfaf35058cb2',
      to: '0x9344B07175800259691961298CA11C824E65032D',
      gas: '0xea60',
      maxFeePerGas: '0x44103f3',
      maxPriorityFeePerGas: '0xb',
      value: '0x17',
      nonce: '0x2',
      data: '0x01',
      input: '0x333435',
      accessList: [{ address: '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df', storageKeys: [`0x${'00'.repeat(32)}`] }],
      blobVersionedHashes: [`0x01${'00'.repeat(31)}`],
      unknownField: 1,
    });
    expect(a.gas).toBe(0xea60n);
    expect(a.value).toBe(0x17n);
    expect(a.nonce).toBe(2n);
    expect(Buffer.from(a.input as Uint8Array).toString('hex')).toBe('333435');
    expect(Buffer.from(a.to as Uint8Array).toString('hex')).toBe('9344b07175800259691961298ca11c824e65032d');
    expect(a.accessList?.[0]?.[1].length).toBe(1);
    expect(decodeCallArgs({ data: '0x01' }).input).toEqual(Uint8Array.of(1));
    expect(decodeCallArgs({ to: null }).to).toBeUndefined();
  });

  it('words field errors as Go does for struct fields', () => {
    expect(() => decodeCallArgs({ gas: 5 })).toThrow(
      new ParamError(
        'json: cannot unmarshal non-string into Go struct field TransactionArgs.gas of type hexutil.Uint64',
      ),
    );
    expect(() => decodeCallArgs({ from: '0x12' })).toThrow(/want 40 for common.Address/);
    expect(() => decodeCallArgs([])).toThrow(ParamError);
  });

  it('fills call defaults and builds the message like CallDefaults and ToMessage', () => {
    const base = decodeCallArgs({ to: '0x9344b07175800259691961298ca11c824e65032d' });
    const filled = callDefaults(base, 50_000_000n, 100n, 1n);
    expect(filled).toMatchObject({ gas: 50_000_000n, nonce: 0n, value: 0n, maxFeePerGas: 0n, chainId: 1n });
    expect(toMessage(filled, 100n)).toMatchObject({ gasPrice: 0n, feeCap: 0n, tipCap: 0n, legacyFees: false });
    const capped = callDefaults({ ...base, gas: 60_000_000n }, 50_000_000n, 100n, 1n);
    expect(capped.gas).toBe(50_000_000n);
    expect(callDefaults({ ...base }, 0n, 100n, 1n).gas).toBe(((1n << 64n) - 1n) / 2n);
    const eip1559 = callDefaults({ ...base, maxFeePerGas: 150n, maxPriorityFeePerGas: 70n }, 0n, 100n, 1n);
    expect(toMessage(eip1559, 100n)).toMatchObject({ gasPrice: 150n, feeCap: 150n, tipCap: 70n });
    const legacy = callDefaults({ ...base, gasPrice: 120n }, 0n, 100n, 1n);
    expect(toMessage(legacy, 100n)).toMatchObject({ gasPrice: 120n, feeCap: 120n, tipCap: 120n, legacyFees: true });
    expect(toMessage(callDefaults(base, 0n, undefined, 1n), undefined)).toMatchObject({
      gasPrice: 0n,
      legacyFees: true,
    });
    expect(() => callDefaults({ ...base, chainId: 5n }, 0n, 1n, 1n)).toThrow(RpcError);
    expect(() => callDefaults({ ...base, gasPrice: 1n, maxFeePerGas: 1n }, 0n, 1n, 1n)).toThrow(
      'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    );
  });
});

describe('revert reasons', () => {
  it('decodes Error(string) and Panic(uint256) as abi.UnpackRevert does', () => {
    const error = bytes(
      '08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a75736572206572726f72',
    );
    expect(unpackRevert(error)).toBe('user error');
    const panic = bytes('4e487b710000000000000000000000000000000000000000000000000000000000000011');
    expect(unpackRevert(panic)).toBe('arithmetic underflow or overflow');
    expect(unpackRevert(bytes('4e487b710000000000000000000000000000000000000000000000000000000000000099'))).toBe(
      'unknown panic code: 0x99',
    );
    expect(unpackRevert(bytes('77726f6e67'))).toBeUndefined();
    expect(revertError(bytes('77726f6e67')).toJSON()).toEqual({
      code: 3,
      message: 'execution reverted',
      data: '0x77726f6e67',
    });
    expect(revertError(error).message).toBe('execution reverted: user error');
    expect(vmErrorMessage('invalid JUMP')).toBe('invalid jump destination');
  });
});

describe('storage keys', () => {
  it('accepts geth’s loose hash syntax', () => {
    expect(decodeStorageKey('0x1')).toEqual({ key: bytes(`${'00'.repeat(31)}01`), length: 1 });
    expect(decodeStorageKey('01').length).toBe(1);
    expect(() => decodeStorageKey('0xasdf')).toThrow('hex string invalid');
    expect(() => decodeStorageKey(`0x${'00'.repeat(33)}`)).toThrow('hex string too long, want at most 32 bytes');
  });
});

describe('fee math', () => {
  const tx = (f: Partial<DecodedTx>) => f as DecodedTx;

  it('takes the effective tip of each transaction type', () => {
    expect(effectiveTip(tx({ gasPrice: 120n }), 100n)).toBe(20n);
    expect(effectiveTip(tx({ gasPrice: 90n }), 100n)).toBe(-10n);
    expect(effectiveTip(tx({ maxFeePerGas: 150n, maxPriorityFeePerGas: 70n }), 100n)).toBe(50n);
    expect(effectiveTip(tx({ maxFeePerGas: 150n, maxPriorityFeePerGas: 7n }), 100n)).toBe(7n);
    expect(effectiveTip(tx({ gasPrice: 120n }), undefined)).toBe(120n);
  });

  it('computes the next base fee with Ethereum’s and OP chains’ parameters', () => {
    const parent = { number: 5n, gasLimit: 30_000_000n, gasUsed: 20_000_000n, baseFeePerGas: 1_000_000_000n } as Header;
    const l1 = parseChainConfig({ chainId: 1, londonBlock: 0 });
    expect(childBaseFee(l1, parent)).toBe(nextBaseFee(parent as Required<Header>, ETHEREUM_BASE_FEE_PARAMS));
    const op = parseChainConfig({
      chainId: 10,
      londonBlock: 0,
      canyonTime: 0,
      holoceneTime: 100,
      optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    });
    const opParent = { ...parent, timestamp: 10n, extraData: new Uint8Array(0) };
    expect(childBaseFee(op, opParent)).toBe(
      nextBaseFee(parent as Required<Header>, { elasticity: 6n, denominator: 250n }),
    );
    const holocene = { ...opParent, timestamp: 200n, extraData: bytes('00000000080000000a') };
    expect(childBaseFee(op, holocene)).toBe(
      nextBaseFee(parent as Required<Header>, { elasticity: 10n, denominator: 8n }),
    );
    expect(childBaseFee(parseChainConfig({ chainId: 1 }), parent)).toBe(0n);
  });
});
