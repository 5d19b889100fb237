import { createRequire } from 'node:module';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { type AbiFunction, encodeFunctionData, parseAbi, toFunctionSelector } from 'viem';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ALIAS_OFFSET,
  l1BlockFrontCode,
  portalCode,
  SYSTEM_CONFIG_OWNER_SLOT,
  SYSTEM_CONFIG_SELECTORS,
  systemConfigCode,
} from '../../../../src/main/devnet/contracts.js';
import { decodeDepositLog } from '../../../../src/main/node/derive/depositLog.js';
import { applyConfigUpdateLog, systemConfigFromGenesis } from '../../../../src/main/node/derive/systemConfig.js';
import { toHex } from '../../../../src/main/node/derive/types.js';
import { readL1CostParams } from '../../../../src/main/primitives/op/l1BlockStorage.js';
import { encodeL1InfoCalldata, type L1BlockInfo } from '../../../../src/main/primitives/op/l1Info.js';
import type { Log } from '../../../../src/main/primitives/receipt/receipt.js';
import { testRollupConfig } from '../node/derive/fixtures.js';

const require = createRequire(import.meta.url);
const artifact = (name: string) =>
  require(`contracts-bedrock-0173/forge-artifacts/${name}.sol/${name}.json`) as {
    abi: unknown[];
    deployedBytecode: { object: string };
  };

const addr = (n: number | bigint) => new Address(Buffer.from(BigInt(n).toString(16).padStart(40, '0'), 'hex'));
const PORTAL = addr(0xde);
const SYSCFG = addr(0x5c);
const OWNER = addr(0x0e);
const EOA = addr(0xa11ce);
const CONTRACT = addr(0xc0ffee);
const hexb = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const word = (n: bigint) => {
  const out = new Uint8Array(32);
  out.set(hexb(n.toString(16).padStart(64, '0')));
  return out;
};

interface CallResult {
  error: unknown;
  logs: Log[];
  ret: Uint8Array;
}

async function call(
  evm: EVM,
  to: Address,
  data: string | Uint8Array,
  opts: { caller?: Address; origin?: Address; value?: bigint } = {},
): Promise<CallResult> {
  const caller = opts.caller ?? EOA;
  const res = await evm.runCall({
    caller,
    origin: opts.origin ?? caller,
    to,
    data: typeof data === 'string' ? hexb(data) : data,
    value: opts.value ?? 0n,
    gasLimit: 5_000_000n,
  });
  const logs = (res.execResult.logs ?? []).map(([address, topics, d]) => ({ address, topics, data: d }));
  return { error: res.execResult.exceptionError, logs, ret: res.execResult.returnValue };
}

const portalAbi = artifact('OptimismPortal').abi;

describe('devnet portal', () => {
  let evm: EVM;
  beforeEach(async () => {
    evm = await createEVM();
    await evm.stateManager.putCode(PORTAL, portalCode());
    for (const a of [EOA, CONTRACT]) {
      await evm.stateManager.putAccount(a);
      await evm.stateManager.modifyAccountFields(a, { balance: 10n ** 20n });
    }
  });

  const deposit = (to: string, value: bigint, gas: bigint, creation: boolean, data: string) =>
    encodeFunctionData({
      abi: portalAbi,
      functionName: 'depositTransaction',
      args: [to, value, gas, creation, data],
    });

  it('emits TransactionDeposited that derivation decodes field by field (EOA caller)', async () => {
    const to = `0x${'42'.repeat(20)}`;
    for (const data of ['0x', '0x01', `0x${'ab'.repeat(27)}`, `0x${'cd'.repeat(100)}`]) {
      const r = await call(evm, PORTAL, deposit(to, 7n, 100_000n, false, data), { value: 1234n });
      expect(r.error).toBeUndefined();
      expect(r.logs).toHaveLength(1);
      const log = r.logs[0] as Log;
      expect(toHex(log.address)).toBe(PORTAL.toString());
      const tx = decodeDepositLog(log, `0x${'11'.repeat(32)}`, 3);
      expect(toHex(tx.from)).toBe(EOA.toString());
      expect(tx.to && toHex(tx.to)).toBe(to);
      expect(tx.mint).toBe(1234n);
      expect(tx.value).toBe(7n);
      expect(tx.gasLimit).toBe(100_000n);
      expect(toHex(tx.data)).toBe(data);
    }
  });

  it('aliases a contract caller and encodes a creation without recipient', async () => {
    const r = await call(evm, PORTAL, deposit(`0x${'00'.repeat(20)}`, 0n, 200_000n, true, '0x6000'), {
      caller: CONTRACT,
      origin: EOA,
    });
    expect(r.error).toBeUndefined();
    const tx = decodeDepositLog(r.logs[0] as Log, `0x${'11'.repeat(32)}`, 0);
    expect(BigInt(toHex(tx.from))).toBe((0xc0ffeen + ALIAS_OFFSET) & ((1n << 160n) - 1n));
    expect(tx.to).toBeUndefined();
    expect(toHex(tx.data)).toBe('0x6000');
  });

  it('receive(): a plain transfer deposits to the sender with the default gas limit', async () => {
    const r = await call(evm, PORTAL, '0x', { value: 10n ** 18n });
    expect(r.error).toBeUndefined();
    const tx = decodeDepositLog(r.logs[0] as Log, `0x${'11'.repeat(32)}`, 0);
    expect(toHex(tx.from)).toBe(EOA.toString());
    expect(tx.to && toHex(tx.to)).toBe(EOA.toString());
    expect(tx.mint).toBe(10n ** 18n);
    expect(tx.value).toBe(10n ** 18n);
    expect(tx.gasLimit).toBe(100_000n);
    expect(tx.data).toHaveLength(0);
  });

  it('reverts what the real portal rejects', async () => {
    const to = `0x${'42'.repeat(20)}`;
    // gas below 21000 + 16 per byte
    expect((await call(evm, PORTAL, deposit(to, 0n, 21_000n + 15n, false, '0x01'))).error).toBeDefined();
    expect((await call(evm, PORTAL, deposit(to, 0n, 21_016n, false, '0x01'))).error).toBeUndefined();
    // a creation that names a recipient
    expect((await call(evm, PORTAL, deposit(to, 0n, 100_000n, true, '0x'))).error).toBeDefined();
    // above the resource-metering cap
    expect((await call(evm, PORTAL, deposit(to, 0n, 20_000_001n, false, '0x'))).error).toBeDefined();
    // a dirty address word
    const dirty = hexb(deposit(to, 0n, 100_000n, false, '0x'));
    dirty[4] = 1;
    expect((await call(evm, PORTAL, dirty)).error).toBeDefined();
    // an unknown selector
    expect((await call(evm, PORTAL, '0x12345678')).error).toBeDefined();
  });
});

const sysAbi = parseAbi([
  'function owner() view returns (address)',
  'function setBatcherHash(bytes32)',
  'function setGasConfig(uint256,uint256)',
  'function setGasConfigEcotone(uint32,uint32)',
  'function setGasLimit(uint64)',
  'function setUnsafeBlockSigner(address)',
  'function setEIP1559Params(uint32,uint32)',
  'function setOperatorFeeScalars(uint32,uint64)',
  'function setMinBaseFee(uint64)',
  'function setDAFootprintGasScalar(uint16)',
]);

describe('devnet system config', () => {
  let evm: EVM;
  const cfg = testRollupConfig({ ecotone_time: 0 });
  beforeEach(async () => {
    evm = await createEVM();
    await evm.stateManager.putCode(SYSCFG, systemConfigCode());
    await evm.stateManager.putStorage(SYSCFG, word(SYSTEM_CONFIG_OWNER_SLOT), hexb(OWNER.toString()));
  });

  it('the real contract ABI has the same selectors for the setters it knows', () => {
    const real = artifact('SystemConfig').abi as AbiFunction[];
    for (const name of ['setBatcherHash', 'setGasConfig', 'setGasLimit', 'setUnsafeBlockSigner', 'owner'] as const) {
      const item = real.find((f) => f.type === 'function' && f.name === name) as AbiFunction;
      expect(Number(toFunctionSelector(item)), name).toBe(SYSTEM_CONFIG_SELECTORS[name]);
    }
  });

  async function update(functionName: string, args: unknown[]) {
    const data = encodeFunctionData({ abi: sysAbi, functionName: functionName as 'owner', args: args as never });
    const r = await call(evm, SYSCFG, data, { caller: OWNER });
    expect(r.error, functionName).toBeUndefined();
    expect(r.logs).toHaveLength(1);
    const sc = systemConfigFromGenesis(cfg.genesis.systemConfig);
    applyConfigUpdateLog(sc, r.logs[0] as Log, cfg, 10_000);
    return sc;
  }

  it('every setter emits a ConfigUpdate that derivation applies as intended', async () => {
    const batcher = `0x${'ab'.repeat(20)}`;
    expect((await update('setBatcherHash', [`0x${'00'.repeat(12)}${batcher.slice(2)}`])).batcherAddr).toBe(batcher);
    const eco = await update('setGasConfigEcotone', [1368, 810949]);
    expect(toHex(eco.scalar)).toBe(`0x01${'00'.repeat(23)}000c5fc500000558`);
    expect(toHex(eco.overhead)).toBe(`0x${'00'.repeat(32)}`);
    expect((await update('setGasLimit', [60_000_000n])).gasLimit).toBe(60_000_000n);
    expect(toHex((await update('setEIP1559Params', [250, 6])).eip1559Params)).toBe('0x000000fa00000006');
    const op = (await update('setOperatorFeeScalars', [7, 9n])).operatorFeeParams;
    expect(op).toHaveLength(32);
    expect(BigInt(toHex(op))).toBe((7n << 64n) | 9n);
    expect((await update('setMinBaseFee', [1000n])).minBaseFee).toBe(1000n);
    expect((await update('setDAFootprintGasScalar', [400])).daFootprintGasScalar).toBe(400);
    const signer = await update('setUnsafeBlockSigner', [`0x${'cd'.repeat(20)}`]);
    expect(signer.batcherAddr).toBe(cfg.genesis.systemConfig.batcherAddr);
    // A pre-Ecotone style update: overhead and scalar as given (rejected by Ecotone's scalar check only if invalid).
    const legacy = await update('setGasConfig', [0n, 1_000_000n]);
    expect(BigInt(toHex(legacy.scalar))).toBe(1_000_000n);
  });

  it('only the owner may update; owner() is public', async () => {
    const data = encodeFunctionData({ abi: sysAbi, functionName: 'setGasLimit', args: [1n] });
    expect((await call(evm, SYSCFG, data, { caller: EOA })).error).toBeDefined();
    const r = await call(evm, SYSCFG, encodeFunctionData({ abi: sysAbi, functionName: 'owner' }));
    expect(toHex(r.ret)).toBe(`0x${'00'.repeat(12)}${OWNER.toString().slice(2)}`);
    const zero = encodeFunctionData({ abi: sysAbi, functionName: 'setEIP1559Params', args: [0, 6] });
    expect((await call(evm, SYSCFG, zero, { caller: OWNER })).error).toBeDefined();
    const wide = hexb(encodeFunctionData({ abi: sysAbi, functionName: 'setGasLimit', args: [1n] }));
    wide[4 + 23] = 1; // above uint64
    expect((await call(evm, SYSCFG, wide, { caller: OWNER })).error).toBeDefined();
  });
});

describe('L1Block front', () => {
  const L1B = addr(0x4200000000000000000000000000000000000015n);
  const IMPL = 0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d30015n;
  const DEPOSITOR = addr(0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001n);
  let evm: EVM;
  beforeEach(async () => {
    evm = await createEVM();
    await evm.stateManager.putCode(L1B, l1BlockFrontCode(IMPL));
    await evm.stateManager.putCode(addr(IMPL), hexb(artifact('L1Block').deployedBytecode.object));
  });

  const info: L1BlockInfo = {
    number: 123n,
    time: 1_700_000_000n,
    baseFee: 7_000_000_000n,
    blockHash: hexb('11'.repeat(32)),
    sequenceNumber: 4n,
    batcherHash: hexb(`${'00'.repeat(12)}${'bb'.repeat(20)}`),
    blobBaseFee: 3n,
    baseFeeScalar: 1368n,
    blobBaseFeeScalar: 810949n,
    operatorFeeScalar: 11n,
    operatorFeeConstant: 22n,
    daFootprintGasScalar: 400n,
  };

  async function state() {
    const slots = new Map<bigint, bigint>();
    for (let s = 0n; s <= 8n; s++) {
      const v = await evm.stateManager.getStorage(L1B, word(s));
      slots.set(s, v.length === 0 ? 0n : BigInt(toHex(v)));
    }
    return (slot: bigint) => slots.get(slot) ?? 0n;
  }

  for (const format of ['ecotone', 'isthmus', 'jovian'] as const) {
    it(`stores the ${format} L1-info calldata as execution reads it`, async () => {
      const r = await call(evm, L1B, encodeL1InfoCalldata(info, format), { caller: DEPOSITOR });
      expect(r.error).toBeUndefined();
      const read = readL1CostParams(await state(), format === 'ecotone' ? 'fjord' : format);
      expect(read.l1BaseFee).toBe(info.baseFee);
      expect(read.l1BlobBaseFee).toBe(3n);
      expect(read.baseFeeScalar).toBe(1368n);
      expect(read.blobBaseFeeScalar).toBe(810949n);
      expect(read.operatorFeeScalar).toBe(format === 'ecotone' ? 0n : 11n);
      expect(read.operatorFeeConstant).toBe(format === 'ecotone' ? 0n : 22n);
      expect(read.daFootprintGasScalar).toBe(format === 'jovian' ? 400n : 0n);
      // Getters are the real implementation's, through the front.
      const n = await call(
        evm,
        L1B,
        encodeFunctionData({ abi: parseAbi(['function number() view returns (uint64)']) }),
      );
      expect(BigInt(toHex(n.ret))).toBe(123n);
    });
  }

  it('rejects the setters from anyone but the depositor', async () => {
    const r = await call(evm, L1B, encodeL1InfoCalldata(info, 'isthmus'), { caller: EOA });
    expect(r.error).toBeDefined();
    const e = await call(evm, L1B, encodeL1InfoCalldata(info, 'ecotone'), { caller: EOA });
    expect(e.error).toBeDefined();
  });
});
