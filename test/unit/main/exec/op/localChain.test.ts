// A local OP chain run through processBlock across Bedrock → Regolith → Canyon → Ecotone → Fjord → Isthmus (one
// block per upgrade, timestamps 2..14), each with an L1-info deposit, a user deposit with mint, and a signed user
// transaction; balances, vault fees and receipts are checked against numbers computed here from the spec formulas.
//
// The L1Block predeploy is a minimal contract with the spec's storage layout: its code stores (slot, value) word
// pairs from calldata, so the L1-info deposit writes exactly the slots op-geth's L1-cost function reads.
import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, KECCAK256_NULL } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { processBlock } from '../../../../../src/main/exec/chain/processBlock.js';
import {
  BASE_FEE_VAULT_ADDRESS,
  L1_BLOCK_ADDRESS,
  L1_FEE_VAULT_ADDRESS,
  L1_INFO_DEPOSITOR_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
} from '../../../../../src/main/exec/evm/op/constants.js';
import {
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE_HASH,
} from '../../../../../src/main/exec/evm/op/create2deployer.js';
import { Executor } from '../../../../../src/main/exec/evm/transition.js';
import { FlatState } from '../../../../../src/main/exec/state/flatState.js';
import type { AccountRecord, StateReader } from '../../../../../src/main/exec/state/interface.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import type { Block } from '../../../../../src/main/primitives/block/block.js';
import { EMPTY_UNCLE_HASH, type Header } from '../../../../../src/main/primitives/block/header.js';
import { toHexKey } from '../../../../../src/main/primitives/bytes.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';
import { flzCompressLen } from '../../../../../src/main/primitives/op/fastlz.js';
import { encodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { createKzg } from '../../../../../src/main/protocol/crypto/kzg.js';

const addr = (hex: string) => new Address(Uint8Array.from(Buffer.from(hex.padStart(40, '0'), 'hex')));
const ETH = 10n ** 18n;
const SEQUENCER_FEE_VAULT = addr('4200000000000000000000000000000000000011');
const ALICE_KEY = Uint8Array.from(
  Buffer.from('45a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8', 'hex'),
);
const BOB = addr('b0b');

// L1Block stand-in: for (i = 0; i < calldatasize; i += 64) sstore(calldataload(i), calldataload(i + 32))
const PAIR_STORE = Uint8Array.from(Buffer.from('60005b803611156018578060200135813555604001600256' + '5b00', 'hex'));

const config = parseChainConfig({
  chainId: 901,
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
  bedrockBlock: 0,
  terminalTotalDifficulty: 0,
  regolithTime: 4,
  shanghaiTime: 6,
  canyonTime: 6,
  cancunTime: 8,
  ecotoneTime: 8,
  fjordTime: 12,
  graniteTime: 12,
  holoceneTime: 12,
  pragueTime: 14,
  isthmusTime: 14,
  optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
});
const common = createCustomCommon({ chainId: 901 }, Mainnet, { customCrypto: { kzg: createKzg() } });

type Account = AccountRecord & { code?: Uint8Array };
class Genesis implements StateReader {
  constructor(private readonly accounts: Map<string, Account>) {}
  getAccount(address: Uint8Array) {
    return this.accounts.get(toHexKey(address));
  }
  getStorage() {
    return 0n;
  }
  getCode(hash: Uint8Array) {
    for (const a of this.accounts.values()) if (a.code && toHexKey(a.codeHash) === toHexKey(hash)) return a.code;
    return new Uint8Array(0);
  }
}

const word = (v: bigint) => Uint8Array.from(Buffer.from(v.toString(16).padStart(64, '0'), 'hex'));
const pairs = (slots: Array<[bigint, bigint]>) => Buffer.concat(slots.flatMap(([s, v]) => [word(s), word(v)]));

/** The L1-info deposit writing these L1Block slots (a system transaction before Regolith, as derivation makes). */
function l1Info(n: number, slots: Array<[bigint, bigint]>, regolith: boolean): Uint8Array {
  return encodeDepositTx({
    sourceHash: keccak256(Uint8Array.of(1, n)),
    from: L1_INFO_DEPOSITOR_ADDRESS.bytes,
    to: L1_BLOCK_ADDRESS.bytes,
    mint: 0n,
    value: 0n,
    gasLimit: regolith ? 1_000_000n : 150_000_000n,
    isSystemTx: !regolith,
    data: pairs(slots),
  });
}

function userDeposit(n: number, from: Address, mint: bigint, value: bigint, gasLimit: bigint, to = addr('bb01')) {
  return encodeDepositTx({
    sourceHash: keccak256(Uint8Array.of(2, n)),
    from: from.bytes,
    to: to.bytes,
    mint,
    value,
    gasLimit,
    isSystemTx: false,
    data: new Uint8Array(0),
  });
}

const BASE_FEE = 100n;
const TIP = 2n;
function userTx(nonce: bigint, value: bigint) {
  const tx = createFeeMarket1559Tx(
    { nonce, to: BOB.bytes, value, gasLimit: 21_000n, maxFeePerGas: 200n, maxPriorityFeePerGas: TIP, chainId: 901n },
    { common },
  ).sign(ALICE_KEY);
  return { raw: tx.serialize(), sender: tx.getSenderAddress() };
}

/** Spec formulas (exec-engine.md "L1-Cost fees"), written out independently of the implementation. */
function zerosOnes(raw: Uint8Array): [bigint, bigint] {
  const z = BigInt(raw.filter((b) => b === 0).length);
  return [z, BigInt(raw.length) - z];
}
const L1 = { baseFee: 7_000_000_000n, overhead: 188n, scalar: 684_000n, blobBaseFee: 3_000_000n };
const ECO = { baseFeeScalar: 1368n, blobBaseFeeScalar: 810_949n };
const OPFEE = { scalar: 5000n, constant: 12_345n };
function bedrockFee(raw: Uint8Array, regolith: boolean): bigint {
  const [z, o] = zerosOnes(raw);
  const gas = z * 4n + (o + (regolith ? 0n : 68n)) * 16n + L1.overhead;
  return (gas * L1.baseFee * L1.scalar) / 1_000_000n;
}
function ecotoneFee(raw: Uint8Array): bigint {
  const [z, o] = zerosOnes(raw);
  const gas = z * 4n + o * 16n;
  return (gas * (16n * L1.baseFee * ECO.baseFeeScalar + L1.blobBaseFee * ECO.blobBaseFeeScalar)) / 16_000_000n;
}
function fjordFee(raw: Uint8Array): bigint {
  const scaled = -42_585_600n + 836_500n * BigInt(flzCompressLen(raw));
  const size = scaled < 100_000_000n ? 100_000_000n : scaled;
  return (size * (16n * L1.baseFee * ECO.baseFeeScalar + L1.blobBaseFee * ECO.blobBaseFeeScalar)) / 1_000_000_000_000n;
}
const bedrockSlots: Array<[bigint, bigint]> = [
  [1n, L1.baseFee],
  [5n, L1.overhead],
  [6n, L1.scalar],
];
const ecotoneSlots: Array<[bigint, bigint]> = [
  [1n, L1.baseFee],
  [3n, (ECO.baseFeeScalar << 96n) | (ECO.blobBaseFeeScalar << 64n) | 7n],
  [7n, L1.blobBaseFee],
];
const isthmusSlots: Array<[bigint, bigint]> = [...ecotoneSlots, [8n, (OPFEE.scalar << 64n) | OPFEE.constant]];

function header(n: bigint, timestamp: bigint): Header {
  const cancun = timestamp >= 8n;
  return {
    parentHash: keccak256(word(n - 1n)),
    uncleHash: EMPTY_UNCLE_HASH,
    coinbase: SEQUENCER_FEE_VAULT.bytes,
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp,
    extraData: new Uint8Array(0),
    mixHash: keccak256(word(n)),
    nonce: new Uint8Array(8),
    baseFeePerGas: BASE_FEE,
    ...(timestamp >= 6n ? { withdrawalsRoot: new Uint8Array(32) } : {}),
    ...(cancun ? { blobGasUsed: 0n, excessBlobGas: 0n, parentBeaconBlockRoot: keccak256(word(100n + n)) } : {}),
  };
}

describe('local OP chain through the fork schedule', () => {
  it('executes deposits and user transactions with OP fees, by fork', async () => {
    const alice = userTx(0n, 0n).sender;
    const genesis = new Genesis(
      new Map<string, Account>([
        [toHexKey(alice.bytes), { nonce: 0n, balance: 100n * ETH, codeHash: KECCAK256_NULL }],
        [L1_BLOCK_ADDRESS.toString(), { nonce: 1n, balance: 0n, codeHash: keccak256(PAIR_STORE), code: PAIR_STORE }],
      ]),
    );
    const state = new FlatState(genesis);
    const executor = await Executor.create({ common, state });
    const bal = (a: Address) => state.getBalance(a);
    const watched = [
      alice,
      BOB,
      SEQUENCER_FEE_VAULT,
      BASE_FEE_VAULT_ADDRESS,
      L1_FEE_VAULT_ADDRESS,
      OPERATOR_FEE_VAULT_ADDRESS,
    ];

    let aliceNonce = 0n;
    const run = async (n: bigint, timestamp: bigint, txs: Uint8Array[], withWithdrawals = timestamp >= 6n) => {
      const user = userTx(aliceNonce++, 1000n);
      const before = watched.map(bal);
      const block: Block = {
        header: header(n, timestamp),
        transactions: [...txs, user.raw],
        uncles: [],
        ...(withWithdrawals ? { withdrawals: [] } : {}),
      };
      const senders = block.transactions.map(() => user.sender.bytes);
      const outcome = await processBlock({ executor, config, block, senders, getBlockHash: () => undefined });
      const delta = watched.map((a, i) => bal(a) - (before[i] as bigint));
      return { outcome, delta, raw: user.raw };
    };

    // Expected deltas of [alice, bob, sequencer vault, base fee vault, L1 fee vault, operator vault] for the
    // user transaction: 21000 gas at base fee 100 + tip 2, 1000 wei to Bob, plus the L1 fee (and operator fee).
    const expectFees = (delta: bigint[], l1Fee: bigint, operatorFee = 0n) => {
      expect(delta).toEqual([
        -(21_000n * (BASE_FEE + TIP) + 1000n + l1Fee + operatorFee),
        1000n,
        21_000n * TIP,
        21_000n * BASE_FEE,
        l1Fee,
        operatorFee,
      ]);
    };

    // --- Block 1, Bedrock: system L1-info deposit (0 gas), user deposit (reports its gas limit), +68-byte L1 gas.
    const u1 = addr('aa01');
    const b1 = await run(1n, 2n, [l1Info(1, bedrockSlots, false), userDeposit(1, u1, 5n * ETH, ETH, 100_000n)]);
    expect(b1.outcome.receipts.map((r) => r.cumulativeGasUsed)).toEqual([0n, 100_000n, 121_000n]);
    expect(b1.outcome.receipts[0]?.depositNonce).toBeUndefined();
    expect(state.getBalance(u1)).toBe(4n * ETH);
    expect(state.getBalance(addr('bb01'))).toBe(ETH);
    expect(state.getNonce(u1)).toBe(1n);
    expectFees(b1.delta, bedrockFee(b1.raw, false));

    // --- Block 2, Regolith: actual deposit gas, failed deposit keeps its mint and bumps the nonce, system
    // transactions are failed deposits, receipts record depositNonce.
    const u2 = addr('aa02');
    const system = encodeDepositTx({
      sourceHash: keccak256(Uint8Array.of(3)),
      from: u2.bytes,
      to: BOB.bytes,
      mint: 0n,
      value: 0n,
      gasLimit: 40_000n,
      isSystemTx: true,
      data: new Uint8Array(0),
    });
    const b2 = await run(2n, 4n, [
      l1Info(2, bedrockSlots, true),
      userDeposit(2, u2, 2n * ETH, 3n * ETH, 50_000n),
      system,
    ]);
    const [info2, failed2, system2] = b2.outcome.results;
    expect(info2?.status).toBe(1);
    // 21000 + calldata (3 pairs = 192 bytes) + 3 SSTOREs rewriting the same values (warm writes of equal values).
    expect(info2?.gasUsed).toBeLessThan(100_000n);
    expect(info2?.gasUsed).toBeGreaterThan(21_000n);
    expect(failed2).toMatchObject({ status: 0, gasUsed: 50_000n, depositNonce: 0n });
    expect(system2).toMatchObject({ status: 0, gasUsed: 40_000n, depositNonce: 1n });
    expect(state.getBalance(u2)).toBe(2n * ETH);
    expect(state.getNonce(u2)).toBe(2n);
    expect(b2.outcome.receipts[1]?.depositNonce).toBe(0n);
    expect(b2.outcome.receipts[1]?.depositReceiptVersion).toBeUndefined();
    expectFees(b2.delta, bedrockFee(b2.raw, true));

    // --- Block 3, Canyon (activation block): create2deployer, deposit receipt version 1, empty withdrawals only.
    expect(state.getCodeSync(CREATE2_DEPLOYER_ADDRESS).length).toBe(0);
    const b3 = await run(3n, 6n, [l1Info(3, bedrockSlots, true)]);
    expect(toHexKey(state.getCodeHash(CREATE2_DEPLOYER_ADDRESS))).toBe(CREATE2_DEPLOYER_CODE_HASH);
    expect(b3.outcome.receipts[0]?.depositReceiptVersion).toBe(1n);
    expect(b3.outcome.receipts[0]?.depositNonce).toBeDefined();
    expectFees(b3.delta, bedrockFee(b3.raw, true));

    // --- Block 4, first Ecotone block: L1Block still holds Bedrock values, so the Regolith formula applies.
    const b4 = await run(4n, 8n, [l1Info(4, bedrockSlots, true)]);
    expectFees(b4.delta, bedrockFee(b4.raw, true));
    expect(b4.outcome.blobGasUsed).toBe(0n);

    // --- Block 5, Ecotone with its scalars set.
    const b5 = await run(5n, 10n, [l1Info(5, ecotoneSlots, true)]);
    expectFees(b5.delta, ecotoneFee(b5.raw));

    // --- Block 6, Fjord (with Granite and Holocene): FastLZ-estimated size.
    const b6 = await run(6n, 12n, [l1Info(6, ecotoneSlots, true)]);
    expectFees(b6.delta, fjordFee(b6.raw));
    expect(b6.outcome.requestsHash).toBeUndefined();

    // --- Block 7, Isthmus: operator fee on the gas used (21000 · 5000 / 1e6 + 12345), empty requests hash.
    const b7 = await run(7n, 14n, [l1Info(7, isthmusSlots, true)]);
    expectFees(b7.delta, fjordFee(b7.raw), (21_000n * OPFEE.scalar) / 1_000_000n + OPFEE.constant);
    expect(Buffer.from(b7.outcome.requestsHash ?? []).toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(b7.outcome.results[1]?.operatorFee).toBe(12_450n);

    // Canyon on: a withdrawal in an OP block makes it invalid.
    await expect(
      processBlock({
        executor,
        config,
        block: {
          header: header(8n, 16n),
          transactions: [],
          uncles: [],
          withdrawals: [{ index: 0n, validatorIndex: 0n, address: BOB.bytes, amount: 1n }],
        },
        senders: [],
        getBlockHash: () => undefined,
      }),
    ).rejects.toThrow(/carry no withdrawals/);
  }, 60_000);
});
