// A small OP chain driven through the Engine API for the witness tests, and the execute-witness files of its
// blocks. The genesis config is written out by hand the way op-geth's genesis has it, independently of the rollup
// config, so the rollup config → chain config mapping is checked by the blocks' hashes coming back.
//
// Blocks: L1-info deposits into an L1Block stand-in (storage writes, one that clears a slot), a minted user
// deposit, transfers, a zero-value call that deletes an empty genesis account (EIP-158: an account-trie deletion),
// and calls to a contract that stores BLOCKHASH(number - 3) (ancestor headers in the witness); across Holocene
// (extraData), Isthmus (Prague, withdrawalsRoot) and Jovian (minBaseFee, DA footprint).
import { writeFileSync } from 'node:fs';
import { ChainView } from '../../../../../src/main/exec/chain/chainView.js';
import { payloadVersionAt } from '../../../../../src/main/exec/engine/api.js';
import { L1_BLOCK_ADDRESS, L1_INFO_DEPOSITOR_ADDRESS } from '../../../../../src/main/exec/evm/op/constants.js';
import { generateWitness } from '../../../../../src/main/exec/witness/generate.js';
import { witnessPreimages } from '../../../../../src/main/exec/witness/witness.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { headerToJson } from '../../../../../src/main/primitives/block/header.js';
import { GENESIS_BLOCK_FORKS } from '../../../../../src/main/primitives/chainConfig.js';
import { encodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import type { PayloadAttributes } from '../../../../../src/main/protocol/engine/types.js';
import { ACCOUNT, bytes, type EngineFixture, engineFixture, hex, ZERO32 } from '../engine/fixture.js';

export const CHAIN_ID = 901;
export const GENESIS_TIME = 1000;
const FORKS = { holocene: 1004, isthmus: 1008, jovian: 1010 };
const GAS_LIMIT = 30_000_000n;

const BOB = `0x${'0b'.repeat(20)}`;
/** Empty (nonce 0, no balance, no code) in genesis: touching it deletes it. */
export const EMPTY_ACCOUNT = `0x${'e0'.repeat(20)}`;
/** sstore(number, blockhash(number - 3)) */
export const BLOCKHASH_CONTRACT = `0x${'b1'.repeat(20)}`;
export const BLOCKHASH_CODE = '0x436003900340435500';
// L1Block stand-in: for (i = 0; i < calldatasize; i += 64) sstore(calldataload(i), calldataload(i + 32))
const PAIR_STORE = '0x60005b8036111560185780602001358135556040016002565b00';

export const rollupJson = (l2GenesisHash: string): Record<string, unknown> => ({
  genesis: {
    l1: { hash: `0x${'11'.repeat(32)}`, number: 100 },
    l2: { hash: l2GenesisHash, number: 0 },
    l2_time: GENESIS_TIME,
    system_config: {
      batcherAddr: `0x${'ba'.repeat(20)}`,
      overhead: `0x${'00'.repeat(32)}`,
      scalar: `0x${'00'.repeat(31)}01`,
      gasLimit: Number(GAS_LIMIT),
    },
  },
  block_time: 2,
  max_sequencer_drift: 600,
  seq_window_size: 3600,
  channel_timeout: 300,
  l1_chain_id: 900,
  l2_chain_id: CHAIN_ID,
  regolith_time: 0,
  canyon_time: 0,
  delta_time: 0,
  ecotone_time: 0,
  fjord_time: 0,
  granite_time: 0,
  holocene_time: FORKS.holocene,
  isthmus_time: FORKS.isthmus,
  jovian_time: FORKS.jovian,
  batch_inbox_address: `0xff${'00'.repeat(18)}01`,
  deposit_contract_address: `0x${'de'.repeat(20)}`,
  l1_system_config_address: `0x${'5c'.repeat(20)}`,
  chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
});

function genesisJson(): Record<string, unknown> {
  const zeroForks = [...GENESIS_BLOCK_FORKS, 'bedrockBlock'];
  return {
    config: {
      chainId: CHAIN_ID,
      ...Object.fromEntries(zeroForks.map((f) => [f, 0])),
      terminalTotalDifficulty: 0,
      regolithTime: 0,
      shanghaiTime: 0,
      canyonTime: 0,
      cancunTime: 0,
      ecotoneTime: 0,
      fjordTime: 0,
      graniteTime: 0,
      holoceneTime: FORKS.holocene,
      pragueTime: FORKS.isthmus,
      isthmusTime: FORKS.isthmus,
      jovianTime: FORKS.jovian,
      optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    },
    nonce: '0x0',
    timestamp: `0x${GENESIS_TIME.toString(16)}`,
    extraData: '0x',
    gasLimit: `0x${GAS_LIMIT.toString(16)}`,
    difficulty: '0x0',
    mixHash: hex(ZERO32),
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: '0x3b9aca00',
    alloc: {
      [ACCOUNT.address]: { balance: '0x3635c9adc5dea00000' },
      [L1_BLOCK_ADDRESS.toString()]: { code: PAIR_STORE, nonce: '0x1', balance: '0x0', storage: {} },
      [BLOCKHASH_CONTRACT]: { code: BLOCKHASH_CODE, nonce: '0x1', balance: '0x0' },
      [EMPTY_ACCOUNT]: { balance: '0x0' },
    },
  };
}

const word = (v: bigint) => Buffer.from(v.toString(16).padStart(64, '0'), 'hex');

function l1Info(n: number, slots: Array<[bigint, bigint]>): Uint8Array {
  return encodeDepositTx({
    sourceHash: keccak256(Uint8Array.of(1, n)),
    from: L1_INFO_DEPOSITOR_ADDRESS.bytes,
    to: L1_BLOCK_ADDRESS.bytes,
    mint: 0n,
    value: 0n,
    gasLimit: 1_000_000n,
    isSystemTx: false,
    data: Buffer.concat(slots.flatMap(([s, v]) => [word(s), word(v)])),
  });
}

function mintDeposit(n: number): Uint8Array {
  return encodeDepositTx({
    sourceHash: keccak256(Uint8Array.of(2, n)),
    // An L1 account's aliased address (not ACCOUNT: a deposit bumps its sender's nonce).
    from: bytes(`0x${'a1'.repeat(20)}`),
    to: bytes(BOB),
    mint: 10n ** 15n,
    value: 10n ** 12n,
    gasLimit: 100_000n,
    isSystemTx: false,
    data: new Uint8Array(0),
  });
}

async function userTx(nonce: number, to: string, value: bigint, gas = 100_000n): Promise<Uint8Array> {
  return bytes(
    await ACCOUNT.signTransaction({
      type: 'eip1559',
      chainId: CHAIN_ID,
      nonce,
      to: to as `0x${string}`,
      value,
      gas,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    }),
  );
}

const ECOTONE_SLOTS: Array<[bigint, bigint]> = [
  [1n, 7_000_000_000n],
  [3n, (1368n << 96n) | (810_949n << 64n) | 7n],
  [7n, 3_000_000n],
];

export interface OpBlock {
  hash: Uint8Array;
  parentHash: Uint8Array;
  attributes: PayloadAttributes;
}

export interface OpChain {
  fixture: EngineFixture;
  genesisHash: Uint8Array;
  blocks: OpBlock[];
}

function attributesFor(n: number, timestamp: number, transactions: Uint8Array[]): PayloadAttributes {
  return {
    timestamp: BigInt(timestamp),
    prevRandao: keccak256(Uint8Array.of(3, n)),
    suggestedFeeRecipient: bytes(`0x${'42'.repeat(19)}11`),
    withdrawals: [],
    parentBeaconBlockRoot: keccak256(Uint8Array.of(4, n)),
    transactions,
    noTxPool: true,
    gasLimit: GAS_LIMIT,
    ...(timestamp >= FORKS.holocene
      ? { eip1559Params: bytes(n % 2 ? '0x0000000000000000' : '0x000000fa00000006') }
      : {}),
    ...(timestamp >= FORKS.jovian ? { minBaseFee: 1_000n } : {}),
  };
}

export async function buildOpChain(): Promise<OpChain> {
  const fixture = await engineFixture({ genesis: genesisJson() });
  const config = fixture.store.config();
  const plan: Uint8Array[][] = [
    [l1Info(1, ECOTONE_SLOTS), mintDeposit(1), await userTx(0, BLOCKHASH_CONTRACT, 0n)],
    [l1Info(2, ECOTONE_SLOTS), await userTx(1, BOB, 1000n), await userTx(2, EMPTY_ACCOUNT, 0n)],
    // Slot 7 back to zero: a storage-trie deletion.
    [l1Info(3, [[7n, 0n]]), await userTx(3, BLOCKHASH_CONTRACT, 0n)],
    [l1Info(4, [...ECOTONE_SLOTS, [8n, (5000n << 64n) | 12_345n]]), await userTx(4, BLOCKHASH_CONTRACT, 0n)],
    [l1Info(5, ECOTONE_SLOTS), await userTx(5, BLOCKHASH_CONTRACT, 0n), await userTx(6, BOB, 1n)],
    [l1Info(6, ECOTONE_SLOTS), mintDeposit(6), await userTx(7, BLOCKHASH_CONTRACT, 0n)],
  ];
  const blocks: OpBlock[] = [];
  let parent = fixture.genesisHash;
  for (const [i, txs] of plan.entries()) {
    const n = i + 1;
    const attributes = attributesFor(n, GENESIS_TIME + 2 * n, txs);
    const version = payloadVersionAt(config, attributes.timestamp) as 3 | 4;
    const state = { headBlockHash: parent, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
    const fcu = await fixture.api.forkchoiceUpdated(3, state, attributes);
    if (fcu.payloadId === null) throw new Error(`block ${n}: no payload id`);
    const env = fixture.api.getPayload(version, fcu.payloadId);
    const status = await fixture.api.newPayload(
      version,
      env.executionPayload,
      [],
      attributes.parentBeaconBlockRoot,
      version === 4 ? [] : undefined,
    );
    if (status.status !== 'VALID') throw new Error(`block ${n}: ${status.status} ${status.validationError}`);
    const hash = env.executionPayload.blockHash;
    await fixture.api.forkchoiceUpdated(3, { ...state, headBlockHash: hash });
    blocks.push({ hash, parentHash: parent, attributes });
    parent = hash;
  }
  return { fixture, genesisHash: fixture.genesisHash, blocks };
}

function attributesJson(a: PayloadAttributes): Record<string, unknown> {
  const q = (n: bigint) => `0x${n.toString(16)}`;
  return {
    timestamp: q(a.timestamp),
    prevRandao: hex(a.prevRandao),
    suggestedFeeRecipient: hex(a.suggestedFeeRecipient),
    withdrawals: [],
    parentBeaconBlockRoot: hex(a.parentBeaconBlockRoot as Uint8Array),
    transactions: (a.transactions ?? []).map(hex),
    noTxPool: a.noTxPool,
    gasLimit: q(a.gasLimit as bigint),
    ...(a.eip1559Params ? { eip1559Params: hex(a.eip1559Params) } : {}),
    ...(a.minBaseFee !== undefined ? { minBaseFee: q(a.minBaseFee) } : {}),
  };
}

/** The execute-witness file of `block`, from debug_executionWitness's generator, written to `path`. */
export async function writeWitnessFile(chain: OpChain, block: OpBlock, path: string): Promise<Record<string, unknown>> {
  const { fixture } = chain;
  const view = ChainView.open(fixture.db, fixture.store.config());
  try {
    const witness = await generateWitness(view, block.hash);
    const parent = view.headerByHash(block.parentHash);
    if (parent === undefined) throw new Error('parent not stored');
    const file = {
      rollupConfig: rollupJson(hex(chain.genesisHash)),
      parentHeader: headerToJson(parent, block.parentHash),
      attributes: attributesJson(block.attributes),
      witness: witnessPreimages(witness).map(hex),
    };
    writeFileSync(path, JSON.stringify(file));
    return file;
  } finally {
    view.release();
  }
}
