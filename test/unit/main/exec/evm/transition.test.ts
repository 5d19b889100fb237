import { createRequire } from 'node:module';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { Address, KECCAK256_NULL } from '@ethereumjs/util';
import { beforeEach, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { createBlockEnv } from '../../../../../src/main/exec/evm/env.js';
import type { TransactionLike } from '../../../../../src/main/exec/evm/interface.js';
import { applyTransaction, type BlockContext, Executor } from '../../../../../src/main/exec/evm/transition.js';
import { FlatState } from '../../../../../src/main/exec/state/flatState.js';
import type { AccountRecord, StateReader } from '../../../../../src/main/exec/state/interface.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { fromHex, toHexKey } from '../../../../../src/main/primitives/bytes.js';
import { rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import { createKzg } from '../../../../../src/main/protocol/crypto/kzg.js';

interface Secp256k1 {
  publicKeyCreate(priv: Uint8Array, compressed?: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, priv: Uint8Array): { signature: Uint8Array; recid: number };
}
const secp = createRequire(import.meta.url)('secp256k1') as Secp256k1;

const a = (hex: string) => new Address(fromHex(hex.padStart(40, '0')));
const SENDER = a('a94f5374fce5edbc8e2a8697c15331677e6ebf0b');
const RECIPIENT = a('1000');
const COINBASE = a('c0ffee');
const CONTRACT = a('2000');
const ONE_ETH = 10n ** 18n;

type Account = AccountRecord & { code?: Uint8Array; storage?: Map<string, bigint> };

class Reader implements StateReader {
  private readonly codes = new Map<string, Uint8Array>();
  constructor(private readonly accounts: Map<string, Account>) {
    for (const acc of accounts.values()) if (acc.code !== undefined) this.codes.set(toHexKey(acc.codeHash), acc.code);
  }
  getAccount(address: Uint8Array) {
    return this.accounts.get(toHexKey(address));
  }
  getStorage(address: Uint8Array, slot: Uint8Array) {
    return this.accounts.get(toHexKey(address))?.storage?.get(toHexKey(slot)) ?? 0n;
  }
  getCode(hash: Uint8Array) {
    return this.codes.get(toHexKey(hash)) ?? new Uint8Array(0);
  }
}

function eoa(balance: bigint, nonce = 0n): Account {
  return { nonce, balance, codeHash: KECCAK256_NULL };
}

function contract(code: Uint8Array, balance = 0n): Account {
  return { nonce: 1n, balance, codeHash: keccak256(code), code };
}

const slot = (n: number) => toHexKey(Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0)));

async function setup(hardfork: string, accounts: [Address, Account][], gasLimit = 30_000_000n) {
  const common = new Common({ chain: Mainnet, hardfork, customCrypto: { kzg: createKzg() } });
  const state = new FlatState(new Reader(new Map(accounts.map(([addr, acc]) => [addr.toString(), acc]))));
  const executor = await Executor.create({ common, state });
  const env = createBlockEnv({
    common,
    hardfork,
    number: 1n,
    timestamp: 1_000n,
    coinbase: COINBASE,
    gasLimit,
    baseFee: 7n,
    prevRandao: new Uint8Array(32),
    excessBlobGas: 0n,
  });
  return { state, block: executor.startBlock(env) };
}

function legacy(fields: Partial<TransactionLike> = {}): TransactionLike {
  return {
    type: 0,
    nonce: 0n,
    gasLimit: 100_000n,
    gasPrice: 10n,
    to: RECIPIENT,
    value: 0n,
    data: new Uint8Array(0),
    ...fields,
  };
}

async function rejection(block: BlockContext, tx: TransactionLike, sender = SENDER): Promise<TernError> {
  const err = await applyTransaction(block, tx, sender).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TernError);
  return err as TernError;
}

describe('applyTransaction (Cancun)', () => {
  let state: FlatState;
  let block: BlockContext;

  beforeEach(async () => {
    ({ state, block } = await setup(Hardfork.Cancun, [
      [SENDER, eoa(ONE_ETH)],
      // Stores CALLVALUE+1 in slot 0 and stops: 34 60 01 01 60 00 55 00
      [CONTRACT, contract(Uint8Array.of(0x34, 0x60, 0x01, 0x01, 0x60, 0x00, 0x55, 0x00))],
    ]));
  });

  it('transfers value and charges 21000 gas: the sender pays gasPrice, the coinbase earns the tip', async () => {
    const r = await applyTransaction(block, legacy({ value: 1_000n }), SENDER);
    expect(r.status).toBe(1);
    expect(r.gasUsed).toBe(21_000n);
    expect(r.cumulativeGasUsed).toBe(21_000n);
    expect(r.effectiveGasPrice).toBe(10n);
    expect(state.getBalance(SENDER)).toBe(ONE_ETH - 1_000n - 21_000n * 10n);
    expect(state.getNonce(SENDER)).toBe(1n);
    expect(state.getBalance(RECIPIENT)).toBe(1_000n);
    // Base fee 7 burnt, tip 3 per gas.
    expect(state.getBalance(COINBASE)).toBe(21_000n * 3n);
    expect(block.gasUsed).toBe(21_000n);
  });

  it('runs contract code; a dynamic-fee transaction pays baseFee + tip', async () => {
    const tx: TransactionLike = {
      type: 2,
      nonce: 0n,
      gasLimit: 100_000n,
      maxFeePerGas: 20n,
      maxPriorityFeePerGas: 2n,
      to: CONTRACT,
      value: 5n,
      data: new Uint8Array(0),
      accessList: [],
    };
    const r = await applyTransaction(block, tx, SENDER);
    expect(r.status).toBe(1);
    expect(r.effectiveGasPrice).toBe(9n);
    expect(state.getStorageValue(CONTRACT.bytes, fromHex(slot(0)))).toBe(6n);
    // 21000 + CALLVALUE 2 + PUSH1 3 + ADD 3 + PUSH1 3 + SSTORE cold 0→nonzero 22100 + STOP 0 = 43111
    expect(r.gasUsed).toBe(43_111n);
    expect(state.getBalance(COINBASE)).toBe(43_111n * 2n);
    expect(state.getBalance(SENDER)).toBe(ONE_ETH - 5n - 43_111n * 9n);
  });

  it('rejects invalid transactions with geth-style messages and leaves the state unchanged', async () => {
    const cases: [TransactionLike, string, RegExp][] = [
      [
        legacy({ nonce: 1n }),
        'TR_NonceTooHigh',
        /^nonce too high: address 0xa94f5374Fce5edBC8E2a8697C15331677e6EbF0B, tx: 1 state: 0$/,
      ],
      [
        legacy({ gasPrice: 6n }),
        'TR_FeeCapLessThanBlocksBaseFee',
        /^max fee per gas less than block base fee: .*maxFeePerGas: 6, baseFee: 7$/,
      ],
      [
        legacy({ value: ONE_ETH }),
        'TR_NoFunds',
        /^insufficient funds for gas \* price \+ value: .* have 1000000000000000000 want 1000000000001000000$/,
      ],
      [legacy({ gasLimit: 20_999n }), 'TR_IntrinsicGas', /^intrinsic gas too low: have 20999, want 21000$/],
      [legacy({ gasLimit: 40_000_000n, gasPrice: 7n }), 'TR_GasLimitReached', /^gas limit reached/],
      [
        { ...legacy(), type: 2, gasPrice: undefined, maxFeePerGas: 10n, maxPriorityFeePerGas: 11n, accessList: [] },
        'TR_TipGtFeeCap',
        /^max priority fee per gas higher than max fee per gas/,
      ],
      [
        legacy({ to: undefined, data: new Uint8Array(49_153), gasLimit: 1_000_000n }),
        'TR_InitCodeLimitExceeded',
        /^max initcode size exceeded/,
      ],
      [
        {
          ...legacy(),
          type: 3,
          gasPrice: undefined,
          maxFeePerGas: 10n,
          maxPriorityFeePerGas: 1n,
          accessList: [],
          maxFeePerBlobGas: 1n,
          blobVersionedHashes: [],
        },
        'TR_EMPTYBLOB',
        /^blob transaction missing blob hashes$/,
      ],
      [legacy({ type: 4 }), 'TR_TypeNotSupported', /^transaction type not supported/],
    ];
    for (const [tx, code, message] of cases) {
      const err = await rejection(block, tx);
      expect(err.code).toBe(code);
      expect(err.message).toMatch(message);
    }
    const notEoa = await rejection(block, legacy({ nonce: 1n }), CONTRACT);
    expect(notEoa.code).toBe('SenderNotEOA');
    expect(notEoa.message).toMatch(/^sender not an eoa: address 0x0+2000, len\(code\): 8$/);
    expect(state.diff().accounts.size).toBe(0);
    expect(block.gasUsed).toBe(0n);
  });

  it('charges a reverted call its gas but undoes its value transfer and storage', async () => {
    // PUSH1 1 PUSH1 0 SSTORE PUSH1 0 PUSH1 0 REVERT
    const code = Uint8Array.of(0x60, 0x01, 0x60, 0x00, 0x55, 0x60, 0x00, 0x60, 0x00, 0xfd);
    ({ state, block } = await setup(Hardfork.Cancun, [
      [SENDER, eoa(ONE_ETH)],
      [CONTRACT, contract(code)],
    ]));
    const r = await applyTransaction(block, legacy({ to: CONTRACT, value: 100n }), SENDER);
    expect(r.status).toBe(0);
    expect(r.error).toBe('revert');
    // 21000 + 3 + 3 + 22100 + 3 + 3 = 43112, no refund on a revert
    expect(r.gasUsed).toBe(43_112n);
    expect(state.getBalance(CONTRACT)).toBe(0n);
    expect(state.getStorageValue(CONTRACT.bytes, fromHex(slot(0)))).toBe(0n);
    expect(state.getBalance(SENDER)).toBe(ONE_ETH - 43_112n * 10n);
    expect(state.getNonce(SENDER)).toBe(1n);
  });

  it('caps the SSTORE-clearing refund at a fifth of the gas used (EIP-3529)', async () => {
    // PUSH1 0 PUSH1 0 SSTORE STOP, on a slot holding 1
    const code = Uint8Array.of(0x60, 0x00, 0x60, 0x00, 0x55, 0x00);
    ({ state, block } = await setup(Hardfork.Cancun, [
      [SENDER, eoa(ONE_ETH)],
      [CONTRACT, { ...contract(code), storageRoot: keccak256(Uint8Array.of(1)), storage: new Map([[slot(0), 1n]]) }],
    ]));
    const r = await applyTransaction(block, legacy({ to: CONTRACT }), SENDER);
    // 21000 + 3 + 3 + (2100 cold + 2900 reset) = 26006 before refund; refund 4800 ≤ 26006/5 = 5201
    expect(r.gasUsed).toBe(26_006n - 4_800n);
    expect(state.diff().accounts.get(CONTRACT.toString())?.storage).toEqual(new Map([[slot(0), 0n]]));
  });

  it('creates a contract and returns its address; the new account starts at nonce 1', async () => {
    // init: PUSH1 1 (runtime 0x00 length 1) ... returns one byte 0x00: 60 00 60 00 53 60 01 60 00 f3
    const init = Uint8Array.of(0x60, 0x00, 0x60, 0x00, 0x53, 0x60, 0x01, 0x60, 0x00, 0xf3);
    const r = await applyTransaction(block, legacy({ to: undefined, data: init, gasLimit: 200_000n }), SENDER);
    expect(r.status).toBe(1);
    const created = r.contractAddress as Address;
    // keccak(rlp([sender, 0]))[12:]
    expect(created.bytes).toEqual(keccak256(rlpEncode([SENDER.bytes, 0n])).subarray(12));
    expect(state.getCodeSync(created)).toEqual(Uint8Array.of(0x00));
    expect(state.getNonce(created)).toBe(1n);
    expect(state.diff().codes.get(toHexKey(keccak256(Uint8Array.of(0x00))))).toEqual(Uint8Array.of(0x00));
  });

  it('removes a contract self-destructed in its creating transaction, keeps an older one (EIP-6780)', async () => {
    // init code: PUSH20 RECIPIENT SELFDESTRUCT
    const sd = Uint8Array.from([0x73, ...RECIPIENT.bytes, 0xff]);
    const r = await applyTransaction(
      block,
      legacy({ to: undefined, data: sd, value: 77n, gasLimit: 200_000n }),
      SENDER,
    );
    expect(r.status).toBe(1);
    const created = new Address(keccak256(rlpEncode([SENDER.bytes, 0n])).subarray(12));
    expect(state.exists(created)).toBe(false);
    expect(state.getBalance(RECIPIENT)).toBe(77n);

    const old = a('3000');
    ({ state, block } = await setup(Hardfork.Cancun, [
      [SENDER, eoa(ONE_ETH)],
      [old, contract(sd, 5n)],
    ]));
    await applyTransaction(block, legacy({ to: old }), SENDER);
    expect(state.exists(old)).toBe(true);
    expect(state.getCodeSync(old)).toEqual(sd);
    expect(state.getBalance(old)).toBe(0n);
    expect(state.getBalance(RECIPIENT)).toBe(5n);
  });

  it('does not leave an empty account behind for a zero-value call (EIP-161), nor an empty coinbase', async () => {
    const r = await applyTransaction(block, legacy({ gasPrice: 7n }), SENDER);
    expect(r.status).toBe(1);
    expect(state.exists(RECIPIENT)).toBe(false);
    expect(state.exists(COINBASE)).toBe(false);
    expect([...state.diff().accounts.keys()]).toEqual([SENDER.toString()]);
  });

  it('rejects the deposit type at the top of the transition', async () => {
    const err = await rejection(block, legacy({ type: 0x7e }));
    expect(err.code).toBe('TR_TypeNotSupported');
  });
});

describe('applyTransaction EIP-7702 (Prague)', () => {
  const authorityKey = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
  const authority = new Address(keccak256(secp.publicKeyCreate(authorityKey, false).subarray(1)).subarray(12));
  // Delegate code: PUSH1 42 PUSH1 0 SSTORE STOP
  const DELEGATE = a('d0');
  const delegateCode = Uint8Array.of(0x60, 0x2a, 0x60, 0x00, 0x55, 0x00);

  function sign(chainId: bigint, address: Address, nonce: bigint, key = authorityKey): Uint8Array[] {
    const body = rlpEncode([chainId, address.bytes, nonce]);
    const payload = new Uint8Array(body.length + 1);
    payload[0] = 0x05;
    payload.set(body, 1);
    const { signature, recid } = secp.ecdsaSign(keccak256(payload), key);
    const int = (n: bigint) => fromHex(n === 0n ? '' : n.toString(16));
    return [int(chainId), address.bytes, int(nonce), int(BigInt(recid)), signature.slice(0, 32), signature.slice(32)];
  }

  function setCode(auths: Uint8Array[][], to: Address): TransactionLike {
    return {
      type: 4,
      nonce: 0n,
      gasLimit: 200_000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      to,
      value: 0n,
      data: new Uint8Array(0),
      accessList: [],
      authorizationList: auths,
    };
  }

  it('writes the delegation designator, bumps the authority nonce and runs the delegate in its context', async () => {
    const { state, block } = await setup(Hardfork.Prague, [
      [SENDER, eoa(ONE_ETH)],
      [DELEGATE, contract(delegateCode)],
    ]);
    const r = await applyTransaction(block, setCode([sign(1n, DELEGATE, 0n)], authority), SENDER);
    expect(r.status).toBe(1);
    expect(state.getCodeSync(authority)).toEqual(Uint8Array.from([0xef, 0x01, 0x00, ...DELEGATE.bytes]));
    expect(state.getNonce(authority)).toBe(1n);
    // The call to the authority ran the delegate's code on the authority's storage.
    expect(state.getStorageValue(authority.bytes, fromHex(slot(0)))).toBe(42n);
    expect(state.getStorageValue(DELEGATE.bytes, fromHex(slot(0)))).toBe(0n);
    // New authority: no refund. 21000 + 25000 + PUSH 3 + PUSH 3 + SSTORE 22100 (the delegate is warm: it was
    // resolved at depth 0)
    expect(r.gasUsed).toBe(21_000n + 25_000n + 3n + 3n + 22_100n);
  });

  it('follows the delegation in later calls; the designator is what EXTCODESIZE sees', async () => {
    const { state, block } = await setup(Hardfork.Prague, [
      [SENDER, eoa(ONE_ETH)],
      [DELEGATE, contract(delegateCode)],
      // Caller: EXTCODESIZE(authority) → slot 1; CALL(authority) ; STOP
      [
        CONTRACT,
        contract(
          Uint8Array.from([
            0x73,
            ...authority.bytes, // PUSH20 authority
            0x3b, // EXTCODESIZE
            0x60,
            0x01,
            0x55, // SSTORE slot 1
            0x60,
            0x00,
            0x60,
            0x00,
            0x60,
            0x00,
            0x60,
            0x00,
            0x60,
            0x00, // retLen retOff argLen argOff value
            0x73,
            ...authority.bytes, // PUSH20 authority
            0x5a, // GAS
            0xf1, // CALL
            0x00,
          ]),
        ),
      ],
    ]);
    // Chain id 0: valid on any chain.
    const r1 = await applyTransaction(block, setCode([sign(0n, DELEGATE, 0n)], RECIPIENT), SENDER);
    expect(r1.status).toBe(1);
    const r2 = await applyTransaction(block, { ...legacy({ to: CONTRACT, nonce: 1n }) }, SENDER);
    expect(r2.status).toBe(1);
    expect(state.getStorageValue(CONTRACT.bytes, fromHex(slot(1)))).toBe(23n);
    expect(state.getStorageValue(authority.bytes, fromHex(slot(0)))).toBe(42n);
  });

  it('skips invalid authorizations (wrong chain, wrong nonce, bad signature) and still runs the transaction', async () => {
    const { state, block } = await setup(Hardfork.Prague, [
      [SENDER, eoa(ONE_ETH)],
      [DELEGATE, contract(delegateCode)],
    ]);
    const wrongChain = sign(5n, DELEGATE, 0n);
    const wrongNonce = sign(1n, DELEGATE, 3n);
    const highS = sign(1n, DELEGATE, 0n);
    highS[5] = fromHex('ff'.repeat(32));
    const r = await applyTransaction(block, setCode([wrongChain, wrongNonce, highS], RECIPIENT), SENDER);
    expect(r.status).toBe(1);
    expect(state.exists(authority)).toBe(false);
    expect(r.gasUsed).toBe(21_000n + 3n * 25_000n);
  });

  it('skips an authority that has contract code, and clears a delegation to the zero address', async () => {
    const { state, block } = await setup(Hardfork.Prague, [
      [SENDER, eoa(ONE_ETH)],
      [DELEGATE, contract(delegateCode)],
      [authority, { ...eoa(1n, 0n) }],
    ]);
    await applyTransaction(block, setCode([sign(1n, DELEGATE, 0n)], RECIPIENT), SENDER);
    expect(state.getCodeSync(authority).length).toBe(23);
    // Existing authority: 12500 refunded (capped at a fifth of 46000).
    const zero = new Address(new Uint8Array(20));
    const r = await applyTransaction(block, { ...setCode([sign(1n, zero, 1n)], RECIPIENT), nonce: 1n }, SENDER);
    expect(r.gasUsed).toBe(46_000n - 46_000n / 5n);
    expect(state.getCodeSync(authority)).toEqual(new Uint8Array(0));
    expect(state.getNonce(authority)).toBe(2n);

    const withCode = await setup(Hardfork.Prague, [
      [SENDER, eoa(ONE_ETH)],
      [authority, contract(delegateCode)],
    ]);
    await applyTransaction(withCode.block, setCode([sign(1n, DELEGATE, 1n)], RECIPIENT), SENDER);
    expect(withCode.state.getCodeSync(authority)).toEqual(delegateCode);
    expect(withCode.state.getNonce(authority)).toBe(1n);
  });

  it('lets a delegated account send transactions (EIP-3607 exception) and rejects empty auth lists', async () => {
    const { block } = await setup(Hardfork.Prague, [
      [SENDER, eoa(ONE_ETH)],
      [
        authority,
        {
          nonce: 0n,
          balance: ONE_ETH,
          codeHash: keccak256(Uint8Array.from([0xef, 0x01, 0x00, ...DELEGATE.bytes])),
          code: Uint8Array.from([0xef, 0x01, 0x00, ...DELEGATE.bytes]),
        },
      ],
    ]);
    const r = await applyTransaction(block, legacy(), authority);
    expect(r.status).toBe(1);
    const err = await rejection(block, setCode([], RECIPIENT));
    expect(err.code).toBe('TR_EmptyAuthList');
  });
});
