import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { encodeRpcTransaction, l2BlockFromRpc, toSingularBatch } from '../../../../src/main/batcher/l2Block.js';
import { decodeTransaction } from '../../../../src/main/primitives/tx/decode.js';
import { txToJson } from '../../../../src/main/primitives/tx/json.js';
import { type Epoch, fakeL2Chain } from './l2Fixtures.js';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const from = Uint8Array.from(Buffer.from(account.address.slice(2), 'hex'));
const epoch: Epoch = { number: 42, hash: `0x${'42'.repeat(32)}`, time: 1000 };
const chain = () =>
  fakeL2Chain({
    count: 3,
    first: 10,
    parentHash: `0x${'09'.repeat(32)}`,
    timestamp0: 2000,
    blockTime: 2,
    epochOf: () => epoch,
    txs: () => 3,
    seed: 'l2b',
  });

describe('L2 blocks from eth_getBlockByNumber', () => {
  it('reads the epoch from the L1-info deposit and re-encodes user transactions to their hashes', async () => {
    const [b0, b1] = await chain();
    const block = l2BlockFromRpc(b1);
    expect(block.number).toBe(11);
    expect(block.parentHash).toBe(b0?.hash);
    expect(block.l1Origin).toEqual({ number: 42, hash: epoch.hash });
    expect(block.sequenceNumber).toBe(1);
    expect(block.transactions).toHaveLength(3); // the deposit is left out
    const batch = toSingularBatch(block);
    expect(batch.epochNum).toBe(42);
    expect(batch.timestamp).toBe(2002);
  });

  it('re-encodes an EIP-7702 transaction', async () => {
    const authorization = await account.signAuthorization({
      chainId: 901,
      nonce: 1,
      contractAddress: '0x00000000000000000000000000000000000000cc',
    });
    const raw = await account.signTransaction({
      type: 'eip7702',
      chainId: 901,
      nonce: 0,
      gas: 100_000n,
      maxFeePerGas: 5n,
      maxPriorityFeePerGas: 1n,
      to: '0x00000000000000000000000000000000000000dd',
      authorizationList: [authorization],
    });
    const bytes = Uint8Array.from(Buffer.from(raw.slice(2), 'hex'));
    expect(encodeRpcTransaction(txToJson(decodeTransaction(bytes), from))).toEqual(bytes);
  });

  it('refuses a transaction that does not re-encode to its hash, and a block without the L1-info deposit', async () => {
    const b0 = (await chain())[0] as Record<string, unknown>;
    const txs = (b0.transactions as Record<string, unknown>[]).map((t) => ({ ...t }));
    (txs[1] as Record<string, unknown>).value = '0x99';
    expect(() => l2BlockFromRpc({ ...b0, transactions: txs })).toThrow(/does not re-encode/);
    expect(() => l2BlockFromRpc({ ...b0, transactions: txs.slice(1) })).toThrow(/L1-info deposit/);
    expect(() => l2BlockFromRpc(null)).toThrow(/not found/);
  });
});
