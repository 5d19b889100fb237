// The L2 genesis state as a whole, executed with @ethereumjs/evm: the L1-info deposit of an Isthmus block lands in
// the L1Block slots execution reads, the GasPriceOracle (Fjord) prices through the L1Block getters, and the
// L2ToL1MessagePasser takes a withdrawal.
import { createEVM, type EVM } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { encodeFunctionData, parseAbi } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountFor } from '../../../../src/main/devnet/accounts.js';
import { l2GenesisJson, PREDEPLOYS } from '../../../../src/main/devnet/genesis.js';
import { parseGenesis } from '../../../../src/main/exec/chain/genesis.js';
import { readL1CostParams } from '../../../../src/main/primitives/op/l1BlockStorage.js';
import { encodeL1InfoCalldata } from '../../../../src/main/primitives/op/l1Info.js';

const at = (a: string) => new Address(Uint8Array.from(Buffer.from(a.slice(2), 'hex')));
const word = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
const big = (b: Uint8Array) => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`));
const hexb = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

const gpo = parseAbi([
  'function isEcotone() view returns (bool)',
  'function isFjord() view returns (bool)',
  'function baseFeeScalar() view returns (uint32)',
  'function l1BaseFee() view returns (uint256)',
  'function getL1Fee(bytes) view returns (uint256)',
]);
const passer = parseAbi([
  'function initiateWithdrawal(address,uint256,bytes) payable',
  'function messageNonce() view returns (uint256)',
]);

describe('devnet L2 genesis predeploys', () => {
  let evm: EVM;
  beforeAll(async () => {
    evm = await createEVM();
    const g = parseGenesis(l2GenesisJson({ chainId: 901n, timestamp: 1000, gasLimit: 30_000_000n, jovian: false }));
    for (const [addr, a] of g.alloc) {
      const address = at(addr);
      await evm.stateManager.putAccount(address);
      await evm.stateManager.modifyAccountFields(address, { balance: a.balance, nonce: a.nonce });
      if (a.code.length > 0) await evm.stateManager.putCode(address, a.code);
      for (const [slot, v] of a.storage) await evm.stateManager.putStorage(address, hexb(slot), word(v));
    }
  });

  const call = async (to: string, data: string | Uint8Array, caller = accountFor('admin').address, value = 0n) => {
    const res = await evm.runCall({
      caller: at(caller),
      origin: at(caller),
      to: at(to),
      data: typeof data === 'string' ? hexb(data) : data,
      value,
      gasLimit: 1_000_000n,
    });
    expect(res.execResult.exceptionError).toBeUndefined();
    return res.execResult.returnValue;
  };

  it('runs the Isthmus L1-info deposit and prices through the GasPriceOracle', async () => {
    const info = {
      number: 10n,
      time: 990n,
      baseFee: 2_000_000_000n,
      blockHash: new Uint8Array(32).fill(1),
      sequenceNumber: 0n,
      batcherHash: new Uint8Array(32),
      blobBaseFee: 1n,
      baseFeeScalar: 1368n,
      blobBaseFeeScalar: 810949n,
      operatorFeeScalar: 0n,
      operatorFeeConstant: 0n,
    };
    await call(PREDEPLOYS.l1Block, encodeL1InfoCalldata(info, 'isthmus'), '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001');
    const slots = new Map<bigint, bigint>();
    for (let s = 0n; s <= 8n; s++)
      slots.set(s, big(await evm.stateManager.getStorage(at(PREDEPLOYS.l1Block), word(s))));
    const fees = readL1CostParams((s) => slots.get(s) ?? 0n, 'isthmus');
    expect(fees.costFork).toBe('fjord');
    expect(fees.l1BaseFee).toBe(2_000_000_000n);

    const q = async (functionName: 'isEcotone' | 'isFjord' | 'baseFeeScalar' | 'l1BaseFee') =>
      big(await call(PREDEPLOYS.gasPriceOracle, encodeFunctionData({ abi: gpo, functionName })));
    expect(await q('isEcotone')).toBe(1n);
    expect(await q('isFjord')).toBe(1n);
    expect(await q('baseFeeScalar')).toBe(1368n);
    expect(await q('l1BaseFee')).toBe(2_000_000_000n);
    const fee = big(
      await call(
        PREDEPLOYS.gasPriceOracle,
        encodeFunctionData({ abi: gpo, functionName: 'getL1Fee', args: [`0x${'ab'.repeat(200)}`] }),
      ),
    );
    expect(fee).toBeGreaterThan(0n);
  });

  it('takes a withdrawal on the L2ToL1MessagePasser', async () => {
    const user = accountFor('admin').address as `0x${string}`;
    await call(
      PREDEPLOYS.l2ToL1MessagePasser,
      encodeFunctionData({ abi: passer, functionName: 'initiateWithdrawal', args: [user, 100_000n, '0x'] }),
      user,
      1000n,
    );
    const nonce = big(
      await call(PREDEPLOYS.l2ToL1MessagePasser, encodeFunctionData({ abi: passer, functionName: 'messageNonce' })),
    );
    expect(nonce & ((1n << 240n) - 1n)).toBe(1n);
  });
});
