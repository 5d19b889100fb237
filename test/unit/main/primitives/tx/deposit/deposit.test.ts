// Vectors: the Ecotone "L1Block Proxy Update" upgrade deposit (fields from specs ecotone/derivation.md, bytes from
// kona's ecotone_tx_2.hex) and kona's user-deposit encodings (deposits.rs).
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../../../../../src/main/native/keccak.js';
import { decodeTransaction } from '../../../../../../src/main/primitives/tx/decode.js';
import {
  DEPOSIT_TX_TYPE,
  type DepositTx,
  decodeDepositTx,
  depositTxHash,
  encodeDepositTx,
} from '../../../../../../src/main/primitives/tx/deposit/deposit.js';
import {
  l1InfoDepositSourceHash,
  upgradeDepositSourceHash,
  userDepositSourceHash,
} from '../../../../../../src/main/primitives/tx/deposit/sourceHash.js';
import { txToJson } from '../../../../../../src/main/primitives/tx/json.js';

const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

const PROXY_UPDATE_RAW =
  '0x7ef876a018acb38c5ff1c238a7460ebc1b421fa49ec4874bdf1e0a530d234104e5e67dbc94000000000000000000000000000000000000' +
  '0000944200000000000000000000000000000000000015808082c35080a43659cfe600000000000000000000000007dbe8500fc591d1852b' +
  '76fee44d5a05e13097ff';
const proxyUpdate: DepositTx = {
  sourceHash: bytes('18acb38c5ff1c238a7460ebc1b421fa49ec4874bdf1e0a530d234104e5e67dbc'),
  from: new Uint8Array(20),
  to: bytes('4200000000000000000000000000000000000015'),
  mint: 0n,
  value: 0n,
  gasLimit: 50_000n,
  isSystemTx: false,
  data: bytes('3659cfe600000000000000000000000007dbe8500fc591d1852b76fee44d5a05e13097ff'),
};
const ZERO_DATA_55 = '00'.repeat(55);
// kona: a contract-creating user deposit from 0x1111…, mint 10, value 100, gas 1000, at log 0 of block 0x00…
const CREATE_RAW = `0x7ef875a0ed428e1c45e1d9561b62834e1a2d3015a0caae3bfdc16b4da059ac885b01a145941111111111111111111111111111111111111111800a648203e880b7${ZERO_DATA_55}`;

describe('source hashes', () => {
  it('upgrade deposits hash their intent (spec values)', () => {
    expect(hex(upgradeDepositSourceHash('Ecotone: L1 Block Deployment'))).toBe(
      '0x877a6077205782ea15a6dc8699fa5ebcec5e0f4389f09cb8eda09488231346f8',
    );
    expect(hex(upgradeDepositSourceHash('Ecotone: L1 Block Proxy Update'))).toBe(hex(proxyUpdate.sourceHash));
  });

  it('user deposits hash block and log index (kona vector)', () => {
    expect(hex(userDepositSourceHash(new Uint8Array(32), 0n))).toBe(
      '0xed428e1c45e1d9561b62834e1a2d3015a0caae3bfdc16b4da059ac885b01a145',
    );
  });

  it('domains keep user and L1-info deposits apart', () => {
    const block = keccak256(Uint8Array.of(1));
    const inner = keccak256(Uint8Array.from([...block, ...new Uint8Array(31), 3]));
    expect(hex(l1InfoDepositSourceHash(block, 3n))).toBe(
      hex(keccak256(Uint8Array.from([...new Uint8Array(31), 1, ...inner]))),
    );
    expect(hex(userDepositSourceHash(block, 3n))).not.toBe(hex(l1InfoDepositSourceHash(block, 3n)));
  });
});

describe('deposit transaction encoding', () => {
  it('encodes the spec’s upgrade deposit byte for byte and decodes it back', () => {
    expect(hex(encodeDepositTx(proxyUpdate))).toBe(PROXY_UPDATE_RAW);
    expect(decodeDepositTx(bytes(PROXY_UPDATE_RAW))).toEqual(proxyUpdate);
    expect(hex(depositTxHash(bytes(PROXY_UPDATE_RAW)))).toBe(hex(keccak256(bytes(PROXY_UPDATE_RAW))));
  });

  it('encodes a contract creation with mint (kona vector)', () => {
    const tx = decodeDepositTx(bytes(CREATE_RAW));
    expect(tx).toMatchObject({ to: undefined, mint: 10n, value: 100n, gasLimit: 1000n, isSystemTx: false });
    expect(hex(tx.from)).toBe('0x1111111111111111111111111111111111111111');
    expect(tx.data).toEqual(new Uint8Array(55));
    expect(hex(encodeDepositTx(tx))).toBe(CREATE_RAW);
  });

  it('round-trips a system transaction flag', () => {
    const sys = { ...proxyUpdate, isSystemTx: true, mint: 5n };
    const raw = encodeDepositTx(sys);
    expect(decodeDepositTx(raw)).toEqual(sys);
  });

  it('rejects malformed deposits', () => {
    const raw = bytes(PROXY_UPDATE_RAW);
    // isSystemTx byte 0x80 → 0x02: not a boolean
    const badBool = raw.slice();
    badBool[raw.length - 38] = 0x02;
    expect(raw[raw.length - 38]).toBe(0x80);
    expect(() => decodeDepositTx(badBool)).toThrow(/boolean/);
    expect(() => decodeDepositTx(bytes('7ec0'))).toThrow(/0 fields, want 8/);
    expect(() => encodeDepositTx({ ...proxyUpdate, from: new Uint8Array(19) })).toThrow(/from/);
    expect(() => encodeDepositTx({ ...proxyUpdate, gasLimit: 1n << 64n })).toThrow(/uint64/);
  });
});

describe('decodeTransaction and RPC shape for deposits', () => {
  it('decodes type 0x7e with zero signature and no chain id', () => {
    const tx = decodeTransaction(bytes(CREATE_RAW));
    expect(tx).toMatchObject({
      type: DEPOSIT_TX_TYPE,
      chainId: undefined,
      nonce: 0n,
      gasPrice: 0n,
      v: 0n,
      r: 0n,
      s: 0n,
    });
    expect(tx.to).toBeUndefined();
    expect(tx.deposit).toMatchObject({ mint: 10n, isSystemTx: false });
    expect(hex(tx.hash)).toBe(hex(keccak256(bytes(CREATE_RAW))));
  });

  it('prints op-geth’s RPCTransaction fields', () => {
    const tx = decodeTransaction(bytes(PROXY_UPDATE_RAW));
    const at = { blockHash: new Uint8Array(32).fill(0xaa), blockNumber: 5n, index: 1, baseFee: 7n };
    const json = txToJson(tx, new Uint8Array(20), at, { depositNonce: 9n, depositReceiptVersion: 1n });
    expect(json).toEqual({
      blockHash: hex(at.blockHash),
      blockNumber: '0x5',
      from: '0x0000000000000000000000000000000000000000',
      gas: '0xc350',
      gasPrice: '0x0',
      hash: hex(tx.hash),
      input: hex(proxyUpdate.data),
      nonce: '0x9',
      to: '0x4200000000000000000000000000000000000015',
      transactionIndex: '0x1',
      value: '0x0',
      type: '0x7e',
      v: '0x0',
      r: '0x0',
      s: '0x0',
      sourceHash: hex(proxyUpdate.sourceHash),
      depositReceiptVersion: '0x1',
    });
    const created = txToJson(decodeTransaction(bytes(CREATE_RAW)), new Uint8Array(20));
    expect(created).toMatchObject({ mint: '0xa', nonce: '0x0', to: null, blockHash: null });
    expect(created).not.toHaveProperty('isSystemTx');
    expect(created).not.toHaveProperty('depositReceiptVersion');
    const sys = decodeTransaction(encodeDepositTx({ ...proxyUpdate, isSystemTx: true }));
    expect(txToJson(sys, new Uint8Array(20))).toMatchObject({ isSystemTx: true });
  });
});
