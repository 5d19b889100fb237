// The Engine API's JSON codecs for payloads: the transactions of engine_newPayload decode into views of one buffer
// (what crosses to the executor thread), with the same -32602 answers as every other hex field for bad input.
import { describe, expect, it } from 'vitest';
import { executionPayloadFromJson, executionPayloadToJson } from '../../../../../src/main/protocol/engine/types.js';
import { RpcError } from '../../../../../src/main/protocol/jsonrpc/errors.js';

const h = (n: number, byte: number) => `0x${byte.toString(16).padStart(2, '0').repeat(n)}`;

function payloadJson(transactions: unknown): Record<string, unknown> {
  return {
    parentHash: h(32, 1),
    feeRecipient: h(20, 2),
    stateRoot: h(32, 3),
    receiptsRoot: h(32, 4),
    logsBloom: h(256, 0),
    prevRandao: h(32, 5),
    blockNumber: '0x1',
    gasLimit: '0x1c9c380',
    gasUsed: '0x5208',
    timestamp: '0x64',
    extraData: '0x',
    baseFeePerGas: '0x7',
    blockHash: h(32, 6),
    transactions,
    withdrawals: [],
    blobGasUsed: '0x0',
    excessBlobGas: '0x0',
  };
}

function invalid(transactions: unknown): RpcError {
  try {
    executionPayloadFromJson(payloadJson(transactions));
  } catch (err) {
    return err as RpcError;
  }
  throw new Error('accepted');
}

describe('executionPayloadFromJson: transactions', () => {
  it('decodes every transaction into a view of one buffer holding only them', () => {
    const txs = ['0x02f86b0101', '0x', '0xABCDEF', h(300, 0xee)];
    const p = executionPayloadFromJson(payloadJson(txs));
    expect(p.transactions.map((t) => `0x${Buffer.from(t).toString('hex')}`)).toEqual(txs.map((t) => t.toLowerCase()));
    const buffers = new Set(p.transactions.map((t) => t.buffer));
    expect(buffers.size).toBe(1);
    expect((p.transactions[0] as Uint8Array).buffer.byteLength).toBe(5 + 0 + 3 + 300);
    // Round trip through the encoder.
    expect(executionPayloadToJson(p).transactions).toEqual(txs.map((t) => t.toLowerCase()));
    // What the executor thread receives: the views, still apart, over one cloned buffer.
    const cloned = structuredClone(p.transactions);
    expect(cloned.map((t) => Buffer.from(t).toString('hex'))).toEqual(
      p.transactions.map((t) => Buffer.from(t).toString('hex')),
    );
    expect(new Set(cloned.map((t) => t.buffer)).size).toBe(1);
  });

  it('decodes an empty list', () => {
    expect(executionPayloadFromJson(payloadJson([])).transactions).toEqual([]);
  });

  it.each([
    ['a number', [12], 'transactions[0]: invalid hex data'],
    ['no 0x prefix', ['0x00', '02f8'], 'transactions[1]: invalid hex data'],
    ['a 0X prefix', ['0X02'], 'transactions[0]: invalid hex data'],
    ['an odd length', ['0x0', '0x02f'], 'transactions[0]: invalid hex data'],
    ['a bad first pair', ['0xzz00'], 'transactions[0]: invalid hex data'],
    ['a bad last pair', ['0x00', '0x02f8g1'], 'transactions[1]: invalid hex data'],
    ['a non-ASCII digit', ['0x0é'], 'transactions[0]: invalid hex data'],
    ['null', [null], 'transactions[0]: invalid hex data'],
  ])('answers -32602 for %s', (_what, txs, message) => {
    const err = invalid(txs);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -32602, message });
  });

  it('answers -32602 when transactions is not an array', () => {
    expect(invalid('0x00')).toMatchObject({ code: -32602, message: 'transactions must be an array' });
    expect(invalid(undefined)).toMatchObject({ code: -32602, message: 'transactions must be an array' });
  });
});
