import { createEVM } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../../src/main/common/errors.js';
import { bedrockCode } from '../../../../../../src/main/devnet/genesis.js';
import { keccak256 } from '../../../../../../src/main/native/keccak.js';
import { toHex } from '../../../../../../src/main/node/derive/types.js';
import { type BytecodeSource, bundledBytecode } from '../../../../../../src/main/node/derive/upgrades/common.js';
import {
  ECOTONE_GAS_PRICE_ORACLE_CODE_HASH,
  ECOTONE_L1_BLOCK_CODE_HASH,
  ecotoneUpgradeTxs,
} from '../../../../../../src/main/node/derive/upgrades/ecotone.js';
import {
  FJORD_GAS_PRICE_ORACLE_CODE_HASH,
  fjordUpgradeTxs,
} from '../../../../../../src/main/node/derive/upgrades/fjord.js';
import {
  CROSS_L2_INBOX_PROXY,
  crossL2InboxActivationTxs,
  INTEROP_CROSS_L2_INBOX_CODE_HASH,
  INTEROP_L2_TO_L2_MESSENGER_ADDRESS,
  INTEROP_L2_TO_L2_MESSENGER_CODE_HASH,
  interopUpgradeTxs,
  L2_TO_L2_MESSENGER_PROXY,
} from '../../../../../../src/main/node/derive/upgrades/interop.js';
import {
  EIP2935_CODE_HASH,
  ISTHMUS_GAS_PRICE_ORACLE_CODE_HASH,
  ISTHMUS_L1_BLOCK_CODE_HASH,
  ISTHMUS_OPERATOR_FEE_VAULT_CODE_HASH,
  isthmusUpgradeTxs,
} from '../../../../../../src/main/node/derive/upgrades/isthmus.js';
import {
  JOVIAN_GAS_PRICE_ORACLE_CODE_HASH,
  JOVIAN_L1_BLOCK_CODE_HASH,
  jovianUpgradeTxs,
} from '../../../../../../src/main/node/derive/upgrades/jovian.js';
import type { DepositTx } from '../../../../../../src/main/primitives/tx/deposit/deposit.js';

// Values copied from the specs' per-fork derivation.md (sourceHash, from, to, gasLimit, data).
type Want = [sourceHash: string, from: string, to: string | undefined, gas: number, data?: string];

function check(txs: DepositTx[], want: Want[]): void {
  expect(txs).toHaveLength(want.length);
  for (const [i, [sh, from, to, gas, data]] of want.entries()) {
    const tx = txs[i] as DepositTx;
    expect(toHex(tx.sourceHash), `tx ${i} sourceHash`).toBe(sh);
    expect(toHex(tx.from), `tx ${i} from`).toBe(from.toLowerCase());
    expect(tx.to === undefined ? undefined : toHex(tx.to), `tx ${i} to`).toBe(to?.toLowerCase());
    expect(tx.gasLimit, `tx ${i} gas`).toBe(BigInt(gas));
    expect(tx.mint).toBe(0n);
    expect(tx.value).toBe(0n);
    expect(tx.isSystemTx).toBe(false);
    if (data !== undefined) expect(toHex(tx.data), `tx ${i} data`).toBe(data);
  }
}

const ZERO = '0x0000000000000000000000000000000000000000';
const DEPOSITOR = '0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001';
const L1B = '0x4200000000000000000000000000000000000015';
const GPO = '0x420000000000000000000000000000000000000F';

/** A source without any bytecode. */
const empty: BytecodeSource = { get: () => undefined };

/**
 * Runs a deployment transaction's data from its sender at nonce 0 within the transaction's gas limit, and checks
 * the contract lands at the address the spec prints (the upgradeTo target of the proxy update) with the code hash
 * the spec requires.
 */
async function expectDeployment(tx: DepositTx, address: string, codeHash: string): Promise<void> {
  const evm = await createEVM();
  const res = await evm.runCall({ caller: new Address(tx.from), data: tx.data, gasLimit: tx.gasLimit });
  expect(res.execResult.exceptionError).toBeUndefined();
  expect(res.createdAddress?.toString()).toBe(address.toLowerCase());
  expect(toHex(keccak256(res.execResult.returnValue))).toBe(codeHash);
}

describe('Ecotone upgrade transactions', () => {
  const txs = ecotoneUpgradeTxs(bundledBytecode());
  it('match the spec field by field', () => {
    check(txs, [
      [
        '0x877a6077205782ea15a6dc8699fa5ebcec5e0f4389f09cb8eda09488231346f8',
        '0x4210000000000000000000000000000000000000',
        undefined,
        375_000,
      ],
      [
        '0xa312b4510adf943510f05fcc8f15f86995a5066bd83ce11384688ae20e6ecf42',
        '0x4210000000000000000000000000000000000001',
        undefined,
        1_000_000,
      ],
      [
        '0x18acb38c5ff1c238a7460ebc1b421fa49ec4874bdf1e0a530d234104e5e67dbc',
        ZERO,
        L1B,
        50_000,
        '0x3659cfe600000000000000000000000007dbe8500fc591d1852b76fee44d5a05e13097ff',
      ],
      [
        '0xee4f9385eceef498af0be7ec5862229f426dec41c8d42397c7257a5117d9230a',
        ZERO,
        GPO,
        50_000,
        '0x3659cfe6000000000000000000000000b528d11cc114e026f138fe568744c6d45ce6da7a',
      ],
      ['0x0c1cb38e99dbc9cbfab3bb80863380b0905290b37eb3d6ab18dc01c1f3e75f93', DEPOSITOR, GPO, 80_000, '0x22b90ab3'],
      [
        '0x69b763c48478b9dc2f65ada09b3d92133ec592ea715ec65ad6e7f3dc519dc00c',
        '0x0B799C86a49DEeb90402691F1041aa3AF2d3C875',
        undefined,
        250_000,
      ],
    ]);
  });
  it('deploy contracts at the spec addresses with the code hashes the spec requires', async () => {
    await expectDeployment(txs[0]!, '0x07dbe8500fc591d1852b76fee44d5a05e13097ff', ECOTONE_L1_BLOCK_CODE_HASH);
    await expectDeployment(txs[1]!, '0xb528d11cc114e026f138fe568744c6d45ce6da7a', ECOTONE_GAS_PRICE_ORACLE_CODE_HASH);
  });
});

describe('Fjord upgrade transactions', () => {
  const txs = fjordUpgradeTxs(bundledBytecode());
  it('match the spec field by field', () => {
    check(txs, [
      [
        '0x86122c533fdcb89b16d8713174625e44578a89751d96c098ec19ab40a51a8ea3',
        '0x4210000000000000000000000000000000000002',
        undefined,
        1_450_000,
      ],
      [
        '0x1e6bb0c28bfab3dc9b36ffb0f721f00d6937f33577606325692db0965a7d58c6',
        ZERO,
        GPO,
        50_000,
        '0x3659cfe6000000000000000000000000a919894851548179a0750865e7974da599c0fac7',
      ],
      ['0xbac7bb0d5961cad209a345408b0280a0d4686b1b20665e1b0f9cdafd73b19b6b', DEPOSITOR, GPO, 90_000, '0x8e98b106'],
    ]);
  });
  it('deploys the GasPriceOracle at the spec address with the code hash the spec requires', async () => {
    await expectDeployment(txs[0]!, '0xa919894851548179a0750865e7974da599c0fac7', FJORD_GAS_PRICE_ORACLE_CODE_HASH);
  });
});

describe('Isthmus upgrade transactions', () => {
  const txs = isthmusUpgradeTxs(bundledBytecode());
  it('match the spec field by field', () => {
    check(txs, [
      [
        '0x3b2d0821ca2411ad5cd3595804d1213d15737188ae4cbd58aa19c821a6c211bf',
        '0x4210000000000000000000000000000000000003',
        undefined,
        425_000,
      ],
      [
        '0xfc70b48424763fa3fab9844253b4f8d508f91eb1f7cb11a247c9baec0afb8035',
        '0x4210000000000000000000000000000000000004',
        undefined,
        1_625_000,
      ],
      [
        '0x107a570d3db75e6110817eb024f09f3172657e920634111ce9875d08a16daa96',
        '0x4210000000000000000000000000000000000005',
        undefined,
        500_000,
      ],
      [
        '0xebe8b5cb10ca47e0d8bda8f5355f2d66711a54ddeb0ef1d30e29418c9bf17a0e',
        ZERO,
        L1B,
        50_000,
        '0x3659cfe6000000000000000000000000ff256497d61dcd71a9e9ff43967c13fde1f72d12',
      ],
      [
        '0xecf2d9161d26c54eda6b7bfdd9142719b1e1199a6e5641468d1bf705bc531ab0',
        ZERO,
        GPO,
        50_000,
        '0x3659cfe600000000000000000000000093e57a196454cb919193fa9946f14943cf733845',
      ],
      [
        '0xad74e1adb877ccbe176b8fa1cc559388a16e090ddbe8b512f5b37d07d887a927',
        ZERO,
        '0x420000000000000000000000000000000000001B',
        50_000,
        '0x3659cfe60000000000000000000000004fa2be8cd41504037f1838bce3bcc93bc68ff537',
      ],
      ['0x3ddf4b1302548dd92939826e970f260ba36167f4c25f18390a5e8b194b295319', DEPOSITOR, GPO, 90_000, '0x291b0383'],
      [
        '0xbfb734dae514c5974ddf803e54c1bc43d5cdb4a48ae27e1d9b875a5a150b553a',
        '0x3462413Af4609098e1E27A490f554f260213D685',
        undefined,
        250_000,
      ],
    ]);
  });
  it('deploy contracts at the spec addresses with the code hashes the spec requires', async () => {
    await expectDeployment(txs[0]!, '0xff256497d61dcd71a9e9ff43967c13fde1f72d12', ISTHMUS_L1_BLOCK_CODE_HASH);
    await expectDeployment(txs[1]!, '0x93e57a196454cb919193fa9946f14943cf733845', ISTHMUS_GAS_PRICE_ORACLE_CODE_HASH);
    await expectDeployment(txs[2]!, '0x4fa2be8cd41504037f1838bce3bcc93bc68ff537', ISTHMUS_OPERATOR_FEE_VAULT_CODE_HASH);
    // EIP-2935's history contract address.
    await expectDeployment(txs[7]!, '0x0000f90827f1c53a10cb7a02335b175320002935', EIP2935_CODE_HASH);
  });
  it('fails clearly without the contract bytecode', () => {
    let err: unknown;
    try {
      isthmusUpgradeTxs(empty);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TernError);
    expect((err as TernError).code).toBe('UPGRADE_BYTECODE_UNAVAILABLE');
    expect((err as TernError).severity).toBe('critical');
    expect((err as TernError).message).toContain('isthmus-l1-block-deployment');
  });
});

describe('Jovian upgrade transactions', () => {
  const txs = jovianUpgradeTxs(bundledBytecode());
  it('match the spec field by field, in the spec order', () => {
    check(txs, [
      [
        '0x98faf23b9795967bc0b1c543144739d50dba3ea40420e77ad6ca9848dbfb62e8',
        '0x4210000000000000000000000000000000000006',
        undefined,
        447_315,
      ],
      [
        '0x08447273a4fbce97bc8c515f97ac74efc461f6a4001553712f31ebc11288bad2',
        ZERO,
        L1B,
        50_000,
        '0x3659cfe60000000000000000000000003ba4007f5c922fbb33c454b41ea7a1f11e83df2c',
      ],
      [
        '0xd939cca6eca7bd0ee0c7e89f7e5b5cf7bf6f7afe7b6966bb45dfb95344b31545',
        '0x4210000000000000000000000000000000000007',
        undefined,
        1_750_714,
      ],
      [
        '0x46b597e2d8346ed7749b46734074361e0b41a0ab9af7afda5bb4e367e072bcb8',
        ZERO,
        GPO,
        50_000,
        '0x3659cfe60000000000000000000000004f1db3c6abd250ba86e0928471a8f7db3afd88f1',
      ],
      ['0xe836db6a959371756f8941be3e962d000f7e12a32e49e2c9ca42ba177a92716c', DEPOSITOR, GPO, 90_000, '0xb3d72079'],
    ]);
  });
  it('deploy contracts at the spec addresses with the code hashes the spec requires', async () => {
    await expectDeployment(txs[0]!, '0x3ba4007f5c922fbb33c454b41ea7a1f11e83df2c', JOVIAN_L1_BLOCK_CODE_HASH);
    await expectDeployment(txs[2]!, '0x4f1db3c6abd250ba86e0928471a8f7db3afd88f1', JOVIAN_GAS_PRICE_ORACLE_CODE_HASH);
  });
  it('fails clearly without the contract bytecode', () => {
    expect(() => jovianUpgradeTxs(empty)).toThrow(/jovian-l1-block-deployment/);
  });
});

describe('Interop upgrade transactions', () => {
  const activation = interopUpgradeTxs(bundledBytecode());
  const inbox = crossL2InboxActivationTxs(bundledBytecode());
  it('match the spec field by field: the activation block deploys the L2ToL2CrossDomainMessenger', () => {
    check(activation, [
      [
        '0xf5484697c7a9a791db32a3bf0763bf2ba686c77ae7d4c0a5ee8c222a92a8dcc2',
        '0x4220000000000000000000000000000000000001',
        undefined,
        1_100_000,
      ],
      [
        '0xe54b4d06bbcc857f41ae00e89d820339ac5ce0034aac722c817b2873e03a7e68',
        ZERO,
        '0x4200000000000000000000000000000000000023',
        50_000,
        '0x3659cfe60000000000000000000000000d0edd0ebd0e94d218670a8de867eb5c4d37cadd',
      ],
    ]);
  });
  it('match the spec field by field: the CrossL2Inbox initialization', () => {
    check(inbox, [
      [
        '0x6e5e214f73143df8fe6f6054a3ed7eb472d373376458a9c8aecdf23475beb616',
        '0x4220000000000000000000000000000000000000',
        undefined,
        420_000,
      ],
      [
        '0x88c6b48354c367125a59792a93a7b60ad7cd66e516157dbba16558c68a46d3cb',
        ZERO,
        '0x4200000000000000000000000000000000000022',
        50_000,
        '0x3659cfe6000000000000000000000000691300f512e48b463c2617b34eef1a9f82ee7dbf',
      ],
    ]);
  });
  it('deploy contracts at the spec addresses with the code hashes the spec requires', async () => {
    await expectDeployment(
      activation[0]!,
      '0x0d0edd0ebd0e94d218670a8de867eb5c4d37cadd',
      INTEROP_L2_TO_L2_MESSENGER_CODE_HASH,
    );
    await expectDeployment(inbox[0]!, '0x691300f512e48b463c2617b34eef1a9f82ee7dbf', INTEROP_CROSS_L2_INBOX_CODE_HASH);
  });
});

describe('Interop predeploys after their upgrade transactions', () => {
  const sel = (sig: string) => toHex(keccak256(new TextEncoder().encode(sig))).slice(0, 10);
  const word = (v: bigint | string) => (typeof v === 'string' ? v.slice(2) : v.toString(16)).padStart(64, '0');
  /** A genesis-style proxy (contracts-bedrock's Proxy, admin unset) behind `proxy`, upgraded by the given txs. */
  async function upgraded(txs: DepositTx[], proxy: string) {
    const evm = await createEVM();
    const proxyAddr = new Address(Buffer.from(proxy.slice(2), 'hex'));
    await evm.stateManager.putCode(proxyAddr, Buffer.from(bedrockCode('Proxy').slice(2), 'hex'));
    for (const tx of txs) {
      const res = await evm.runCall({
        caller: new Address(tx.from),
        ...(tx.to === undefined ? {} : { to: new Address(tx.to) }),
        data: tx.data,
        gasLimit: tx.gasLimit,
      });
      expect(res.execResult.exceptionError, 'upgrade transaction').toBeUndefined();
    }
    const call = (data: string, from = `0x${'11'.repeat(20)}`) =>
      evm.runCall({
        caller: new Address(Buffer.from(from.slice(2), 'hex')),
        to: proxyAddr,
        data: Buffer.from(data.slice(2), 'hex'),
        gasLimit: 1_000_000n,
      });
    return { evm, call };
  }

  it('CrossL2Inbox (0x…22) validates a message only when its checksum is in the access list, emitting ExecutingMessage', async () => {
    const { evm, call } = await upgraded(crossL2InboxActivationTxs(bundledBytecode()), `0x${CROSS_L2_INBOX_PROXY}`);
    // Identifier {origin, blockNumber, logIndex, timestamp, chainId} and the message hash.
    const id = word(`0x${'aa'.repeat(20)}`) + word(5n) + word(0n) + word(1_700_000_000n) + word(901n);
    const msgHash = `0x${'cd'.repeat(32)}`;
    const args = id + word(msgHash);
    const sum = await call(`${sel('calculateChecksum((address,uint256,uint256,uint256,uint256),bytes32)')}${args}`);
    expect(sum.execResult.exceptionError).toBeUndefined();
    const checksum = toHex(sum.execResult.returnValue);
    // The spec's checksum entry type: its first byte is 0x03.
    expect(checksum.slice(0, 4)).toBe('0x03');
    const validate = `${sel('validateMessage((address,uint256,uint256,uint256,uint256),bytes32)')}${args}`;
    const cold = await call(validate);
    expect(cold.execResult.exceptionError).toBeDefined();
    expect(toHex(cold.execResult.returnValue)).toBe(sel('NotInAccessList()'));
    evm.journal.addAlwaysWarmSlot(CROSS_L2_INBOX_PROXY, checksum.slice(2));
    const warm = await call(validate);
    expect(warm.execResult.exceptionError).toBeUndefined();
    const logs = warm.execResult.logs ?? [];
    expect(logs).toHaveLength(1);
    const [address, topics] = logs[0] as [Uint8Array, Uint8Array[], Uint8Array];
    expect(toHex(address)).toBe(`0x${CROSS_L2_INBOX_PROXY}`);
    expect(topics.map(toHex)).toEqual([
      toHex(keccak256(new TextEncoder().encode('ExecutingMessage(bytes32,(address,uint256,uint256,uint256,uint256))'))),
      msgHash,
    ]);
  });

  it('L2ToL2CrossDomainMessenger (0x…23) answers through its proxy: no sender outside a relay (NotEntered)', async () => {
    const { call } = await upgraded(interopUpgradeTxs(bundledBytecode()), `0x${L2_TO_L2_MESSENGER_PROXY}`);
    const sender = await call(sel('crossDomainMessageSender()'));
    expect(sender.execResult.exceptionError).toBeDefined();
    expect(toHex(sender.execResult.returnValue)).toBe(sel('NotEntered()'));
    const version = await call(sel('version()'));
    expect(version.execResult.exceptionError).toBeUndefined();
    const ret = version.execResult.returnValue;
    const len = Number(BigInt(toHex(ret.subarray(32, 64))));
    expect(new TextDecoder().decode(ret.subarray(64, 64 + len))).toMatch(/^\d+\.\d+\.\d+/);
    // The proxy now points at the spec's implementation address (ERC-1967 slot, read by the admin: address 0).
    const impl = await call(sel('implementation()'), `0x${'00'.repeat(20)}`);
    expect(toHex(impl.execResult.returnValue)).toBe(`0x${word(`0x${INTEROP_L2_TO_L2_MESSENGER_ADDRESS}`)}`);
  });
});
