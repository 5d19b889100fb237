import { Common, Mainnet } from '@ethereumjs/common';
import { Address, KECCAK256_NULL } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { createBlockEnv } from '../../../../../../src/main/exec/evm/env.js';
import type { TransactionLike } from '../../../../../../src/main/exec/evm/interface.js';
import type { OpForks } from '../../../../../../src/main/exec/evm/op/forks.js';
import { applyTransaction, Executor } from '../../../../../../src/main/exec/evm/transition.js';
import { FlatState } from '../../../../../../src/main/exec/state/flatState.js';
import type { AccountRecord, StateReader } from '../../../../../../src/main/exec/state/interface.js';
import { keccak256 } from '../../../../../../src/main/native/keccak.js';
import { toHexKey } from '../../../../../../src/main/primitives/bytes.js';
import { createKzg } from '../../../../../../src/main/protocol/crypto/kzg.js';

const a = (hex: string) => new Address(Uint8Array.from(Buffer.from(hex.padStart(40, '0'), 'hex')));
const FROM = a('d0');
const REVERTER = a('2000'); // PUSH1 0 PUSH1 0 REVERT
const REVERT_CODE = Uint8Array.of(0x60, 0x00, 0x60, 0x00, 0xfd);
const ETH = 10n ** 18n;

class Reader implements StateReader {
  getAccount(address: Uint8Array): AccountRecord | undefined {
    if (toHexKey(address) === toHexKey(REVERTER.bytes))
      return { nonce: 1n, balance: 0n, codeHash: keccak256(REVERT_CODE) };
    return undefined;
  }
  getStorage() {
    return 0n;
  }
  getCode(hash: Uint8Array) {
    return toHexKey(hash) === toHexKey(KECCAK256_NULL) ? new Uint8Array(0) : REVERT_CODE;
  }
}

const forks = (regolith: boolean): OpForks => ({
  bedrock: true,
  regolith,
  canyon: false,
  ecotone: false,
  fjord: false,
  granite: false,
  holocene: false,
  isthmus: false,
  jovian: false,
});

async function setup(op: OpForks | undefined) {
  const common = new Common({ chain: Mainnet, hardfork: 'cancun', customCrypto: { kzg: createKzg() } });
  const state = new FlatState(new Reader());
  const executor = await Executor.create({ common, state });
  const env = createBlockEnv({
    common,
    hardfork: 'cancun',
    number: 1n,
    timestamp: 10n,
    coinbase: a('c0'),
    gasLimit: 30_000_000n,
    baseFee: 7n,
    prevRandao: new Uint8Array(32),
    excessBlobGas: 0n,
    op,
  });
  return { state, block: executor.startBlock(env) };
}

function deposit(fields: Partial<TransactionLike> & { mint: bigint; isSystemTx?: boolean }): TransactionLike {
  return {
    type: 0x7e,
    nonce: 0n,
    gasLimit: 100_000n,
    to: REVERTER,
    value: 0n,
    data: new Uint8Array(0),
    ...fields,
    deposit: {
      sourceHash: new Uint8Array(32),
      from: FROM.bytes,
      mint: fields.mint,
      isSystemTx: fields.isSystemTx ?? false,
    },
  };
}

describe('deposit transactions', () => {
  it('Regolith: a reverted deposit keeps its mint, bumps the nonce and reports the gas it used', async () => {
    const { state, block } = await setup(forks(true));
    const r = await applyTransaction(block, deposit({ mint: ETH, value: 5n }), FROM);
    expect(r.status).toBe(0);
    // 21000 + 2 × PUSH1 (3) ; REVERT returns the rest.
    expect(r.gasUsed).toBe(21_006n);
    expect(r.depositNonce).toBe(0n);
    expect(r.effectiveGasPrice).toBe(0n);
    expect(state.getBalance(FROM)).toBe(ETH);
    expect(state.getNonce(FROM)).toBe(1n);
    expect(state.getBalance(a('c0'))).toBe(0n);
  });

  it('before Regolith: a deposit reports its gas limit, a system deposit 0 gas outside the pool', async () => {
    const { block } = await setup(forks(false));
    const r = await applyTransaction(block, deposit({ mint: 0n, to: a('3000') }), FROM);
    expect(r).toMatchObject({ status: 1, gasUsed: 100_000n });
    expect(r.depositNonce).toBeUndefined();
    const s = await applyTransaction(
      block,
      deposit({ mint: 0n, to: a('3000'), isSystemTx: true, gasLimit: 50_000_000n }),
      FROM,
    );
    expect(s).toMatchObject({ status: 1, gasUsed: 0n });
    expect(block.gasUsed).toBe(100_000n);
  });

  it('a deposit whose value exceeds balance + mint fails but keeps the mint', async () => {
    const { state, block } = await setup(forks(true));
    const r = await applyTransaction(block, deposit({ mint: 10n, value: 11n, to: a('3000') }), FROM);
    expect(r).toMatchObject({ status: 0, gasUsed: 100_000n });
    expect(state.getBalance(FROM)).toBe(10n);
    expect(state.getBalance(a('3000'))).toBe(0n);
    expect(state.getNonce(FROM)).toBe(1n);
  });

  it('a deposit beyond the block gas left invalidates the block', async () => {
    const { block } = await setup(forks(true));
    await expect(applyTransaction(block, deposit({ mint: 0n, gasLimit: 30_000_001n }), FROM)).rejects.toThrow(
      /gas limit reached/,
    );
  });

  it('is not a transaction type of Ethereum chains; blob transactions are not one of OP chains', async () => {
    const eth = await setup(undefined);
    await expect(applyTransaction(eth.block, deposit({ mint: 0n }), FROM)).rejects.toThrow(/not supported/);
    const op = await setup(forks(true));
    const blob: TransactionLike = {
      type: 3,
      nonce: 0n,
      gasLimit: 100_000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 1n,
      to: a('3000'),
      value: 0n,
      data: new Uint8Array(0),
      blobVersionedHashes: [`0x01${'00'.repeat(31)}`],
    };
    await expect(applyTransaction(op.block, blob, FROM)).rejects.toThrow(/blob transactions on an OP chain/);
  });
});
