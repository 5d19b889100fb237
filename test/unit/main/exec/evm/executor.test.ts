// The executor factory: the block environment carries the OP upgrades of its header, so the executor runs the OP
// precompile set of that fork whichever path (block or call) built the environment; a call's fee relaxations.
import { describe, expect, it } from 'vitest';
import { blockEnv, createExecutor, type EnvHeader } from '../../../../../src/main/exec/evm/executor.js';
import { GENESIS_BLOCK_FORKS, parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';

const EMPTY = { getAccount: () => undefined, getStorage: () => 0n, getCode: () => new Uint8Array(0) };
const P256VERIFY = '0000000000000000000000000000000000000100';

const forksAtZero = Object.fromEntries([...GENESIS_BLOCK_FORKS, 'bedrockBlock'].map((f) => [f, 0]));
const op = parseChainConfig({
  chainId: 901,
  ...forksAtZero,
  terminalTotalDifficulty: 0,
  regolithTime: 0,
  shanghaiTime: 0,
  canyonTime: 0,
  cancunTime: 0,
  ecotoneTime: 0,
  fjordTime: 100,
  graniteTime: 200,
  optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
});
const l1 = parseChainConfig({
  chainId: 1,
  ...Object.fromEntries(GENESIS_BLOCK_FORKS.map((f) => [f, 0])),
  terminalTotalDifficulty: 0,
  shanghaiTime: 0,
  cancunTime: 0,
});

const header = (timestamp: bigint): EnvHeader => ({
  number: timestamp / 2n,
  timestamp,
  coinbase: new Uint8Array(20),
  gasLimit: 30_000_000n,
  baseFeePerGas: 7n,
  mixHash: new Uint8Array(32),
  difficulty: 0n,
  excessBlobGas: 10_000_000n,
  parentBeaconBlockRoot: new Uint8Array(32),
});
const noHashes = () => undefined;

describe('executor factory', () => {
  it('gives the block environment the OP upgrades active at its header, none on an Ethereum chain', async () => {
    const executor = await createExecutor(op, EMPTY);
    const before = blockEnv(op, executor.common, header(50n), noHashes);
    expect(before.op).toMatchObject({ ecotone: true, fjord: false, granite: false });
    const fjord = blockEnv(op, executor.common, header(150n), noHashes);
    expect(fjord.op).toMatchObject({ fjord: true, granite: false });
    expect(blockEnv(op, executor.common, header(250n), noHashes).op).toMatchObject({ fjord: true, granite: true });

    const l1Executor = await createExecutor(l1, EMPTY);
    expect(blockEnv(l1, l1Executor.common, header(150n), noHashes).op).toBeUndefined();
  });

  it('switches the precompile set with the fork: P256VERIFY from Fjord, for blocks and calls alike', async () => {
    const executor = await createExecutor(op, EMPTY);
    const calls = { noBaseFee: true, noBlobBaseFee: true };
    executor.startBlock(blockEnv(op, executor.common, header(50n), noHashes, calls));
    expect(executor.warmPrecompiles()).not.toContain(P256VERIFY);
    executor.startBlock(blockEnv(op, executor.common, header(150n), noHashes, calls));
    expect(executor.warmPrecompiles()).toContain(P256VERIFY);
    executor.startBlock(blockEnv(op, executor.common, header(150n), noHashes));
    expect(executor.warmPrecompiles()).toContain(P256VERIFY);
  });

  it('applies a call’s fee relaxations only when asked', async () => {
    const executor = await createExecutor(l1, EMPTY);
    const block = blockEnv(l1, executor.common, header(150n), noHashes);
    expect(block.baseFee).toBe(7n);
    expect(block.blobBaseFee).toBeGreaterThan(0n);
    const free = blockEnv(l1, executor.common, header(150n), noHashes, { noBaseFee: true, noBlobBaseFee: true });
    expect(free.baseFee).toBe(0n);
    expect(free.blobBaseFee).toBe(0n);
    expect(free.evmBlock.header.getBlobGasPrice()).toBe(0n);
    const paying = blockEnv(l1, executor.common, header(150n), noHashes, { noBaseFee: false, noBlobBaseFee: false });
    expect(paying.baseFee).toBe(7n);
    expect(paying.blobBaseFee).toBe(block.blobBaseFee);
  });
});
