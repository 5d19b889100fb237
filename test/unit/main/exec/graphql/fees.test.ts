// The EIP-1559 and EIP-4844 fields of transactions and blocks against what the JSON-RPC reports for the same
// transactions (eth_getTransactionByHash, eth_getTransactionReceipt, eth_getBlockByNumber).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeGraphql } from '../../../../../src/main/exec/graphql/service.js';
import { buildGraphqlChain, type GraphqlTestChain } from './chain.js';

let chain: GraphqlTestChain;
beforeAll(async () => {
  chain = await buildGraphqlChain({ blobs: true });
});
afterAll(async () => {
  await chain.close();
});

const rpc = (method: string, params: unknown[]) => chain.registry.lookupMethod(method)?.(params, {} as never);

describe('fee and blob fields', () => {
  it('match the JSON-RPC for a dynamic-fee and a blob transaction', async () => {
    const r = await executeGraphql(chain.deps, {
      query: `{block(number:3){blobGasUsed excessBlobGas baseFeePerGas transactions{hash type gasPrice maxFeePerGas
        maxPriorityFeePerGas maxFeePerBlobGas effectiveGasPrice effectiveTip blobGasUsed blobGasPrice
        blobVersionedHashes gasUsed cumulativeGasUsed status yParity v createdContract{address}}}}`,
    });
    expect(r.status, r.body).toBe(200);
    const block = JSON.parse(r.body).data.block;
    const rpcBlock = (await rpc('eth_getBlockByNumber', ['0x3', false])) as Record<string, string>;
    expect(block.blobGasUsed).toBe(rpcBlock.blobGasUsed);
    expect(block.blobGasUsed).toBe('0x20000');
    expect(block.excessBlobGas).toBe(rpcBlock.excessBlobGas);
    expect(block.baseFeePerGas).toBe(rpcBlock.baseFeePerGas);
    const [transfer, blob] = block.transactions;
    for (const t of [transfer, blob]) {
      const tx = (await rpc('eth_getTransactionByHash', [t.hash])) as Record<string, unknown>;
      const receipt = (await rpc('eth_getTransactionReceipt', [t.hash])) as Record<string, unknown>;
      expect(t.type).toBe(tx.type);
      expect(t.gasPrice).toBe(tx.gasPrice);
      expect(t.maxFeePerGas).toBe(tx.maxFeePerGas);
      expect(t.maxPriorityFeePerGas).toBe(tx.maxPriorityFeePerGas);
      expect(t.effectiveGasPrice).toBe(receipt.effectiveGasPrice);
      expect(t.gasUsed).toBe(receipt.gasUsed);
      expect(t.cumulativeGasUsed).toBe(receipt.cumulativeGasUsed);
      expect(t.status).toBe(receipt.status);
      expect(t.yParity).toBe(tx.yParity);
      expect(t.createdContract).toBeNull();
      // The tip: the effective price less the base fee.
      expect(BigInt(t.effectiveTip)).toBe(BigInt(t.effectiveGasPrice) - BigInt(block.baseFeePerGas));
    }
    expect(transfer.type).toBe('0x2');
    expect(transfer.maxFeePerBlobGas).toBeNull();
    expect(transfer.blobVersionedHashes).toBeNull();
    expect(transfer.blobGasUsed).toBeNull();
    const blobReceipt = (await rpc('eth_getTransactionReceipt', [blob.hash])) as Record<string, unknown>;
    expect(blob).toMatchObject({
      type: '0x3',
      maxFeePerBlobGas: '0xa',
      blobVersionedHashes: [`0x01${'11'.repeat(31)}`],
      blobGasUsed: blobReceipt.blobGasUsed,
      blobGasPrice: blobReceipt.blobGasPrice,
    });
    expect(blob.blobGasUsed).toBe('0x20000');
  });

  it('gives legacy transactions no 1559 fields and their own price', async () => {
    const r = await executeGraphql(chain.deps, {
      query:
        '{block(number:1){transactions{maxFeePerGas maxPriorityFeePerGas effectiveGasPrice effectiveTip yParity gasPrice}}}',
    });
    const [legacy, accessList] = JSON.parse(r.body).data.block.transactions;
    expect(legacy).toMatchObject({ maxFeePerGas: null, maxPriorityFeePerGas: null, yParity: null });
    expect(legacy.effectiveGasPrice).toBe('0x3b9aca00');
    expect(accessList.yParity).toMatch(/^0x[01]$/);
    const base = JSON.parse((await executeGraphql(chain.deps, { query: '{block(number:1){baseFeePerGas}}' })).body).data
      .block.baseFeePerGas;
    expect(BigInt(legacy.effectiveTip)).toBe(1_000_000_000n - BigInt(base));
  });
});
