// go-ethereum's graphql_test.go cases as vectors against the same chain built by tern (./chain.ts): where geth's
// expected answer depends only on the chain's inputs (transaction hashes and senders, the withdrawals root, gas
// used, the gas estimate) it is compared byte for byte; elsewhere the shapes are. Errors are compared by shape and
// status code, not by Go's wording.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_DEPTH } from '../../../../../src/main/exec/graphql/depth.js';
import { executeGraphql } from '../../../../../src/main/exec/graphql/service.js';
import { buildGraphqlChain, DAD, type GraphqlTestChain, KEY, KEY2, LOGGER } from './chain.js';

let chain: GraphqlTestChain;
beforeAll(async () => {
  chain = await buildGraphqlChain();
});
afterAll(async () => {
  await chain.close();
});

const run = (query: string, variables?: Record<string, unknown>) =>
  executeGraphql(chain.deps, { query, ...(variables ? { variables } : {}) });

/** The data of a query that must succeed, as JSON text (geth's tests compare marshalled data). */
async function data(query: string, variables?: Record<string, unknown>): Promise<string> {
  const r = await run(query, variables);
  expect(r.status, r.body).toBe(200);
  return JSON.stringify(JSON.parse(r.body).data);
}

describe('block serialisation (TestGraphQLBlockSerialization)', () => {
  it.each([
    ['{block{number}}', '{"data":{"block":{"number":"0x2"}}}'],
    [
      '{block{number,gasUsed,gasLimit}}',
      '{"data":{"block":{"number":"0x2","gasUsed":"0xff18","gasLimit":"0xaf79e0"}}}',
    ],
    [
      '{block(number:0){number,gasUsed,gasLimit}}',
      '{"data":{"block":{"number":"0x0","gasUsed":"0x0","gasLimit":"0xaf79e0"}}}',
    ],
    ['{block(number:-1){number,gasUsed,gasLimit}}', '{"data":{"block":null}}'],
    ['{block(number:-500){number,gasUsed,gasLimit}}', '{"data":{"block":null}}'],
    [
      '{block(number:"0"){number,gasUsed,gasLimit}}',
      '{"data":{"block":{"number":"0x0","gasUsed":"0x0","gasLimit":"0xaf79e0"}}}',
    ],
    ['{block(number:"-33"){number,gasUsed,gasLimit}}', '{"data":{"block":null}}'],
    ['{block(number:"1337"){number,gasUsed,gasLimit}}', '{"data":{"block":null}}'],
    [
      '{block(number:"0x0"){number,gasUsed,gasLimit}}',
      '{"data":{"block":{"number":"0x0","gasUsed":"0x0","gasLimit":"0xaf79e0"}}}',
    ],
    // geth: "should return `estimateGas` as decimal" — the same binary search lands on the same figure.
    ['{block{ estimateGas(data:{}) }}', '{"data":{"block":{"estimateGas":"0xd221"}}}'],
    [
      '{block {number call (data : {from : "0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b", to: "0x6295ee1b4f6dd65047762f924ecd367c17eabf8f", data :"0x12a7b914"}){data status}}}',
      '{"data":{"block":{"number":"0x2","call":{"data":"0x","status":"0x1"}}}}',
    ],
  ])('%s', async (query, want) => {
    const r = await run(query);
    expect(r.body).toBe(want);
    expect(r.status).toBe(200);
  });

  it.each([
    ['a Long that does not parse', '{block(number:"a"){number,gasUsed,gasLimit}}'],
    ['an unknown field', '{bleh{number}}'],
    ['a syntax error', '{block{number}'],
  ])('answers 400 with an errors array for %s', async (_, query) => {
    const r = await run(query);
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body);
    expect(body.errors.length).toBeGreaterThan(0);
    expect(typeof body.errors[0].message).toBe('string');
    expect(body.data).toBeUndefined();
  });

  it('answers a resolver error with its path and null data (blocks without from)', async () => {
    const r = await run('{blocks {number}}');
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body);
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].path).toEqual(['blocks']);
  });
});

describe('EIP-2718 transactions (TestGraphQLBlockSerializationEIP2718)', () => {
  it('serialises a legacy and an access-list transaction as geth does', async () => {
    const query =
      '{block(number:1) {number transactions { from { address } to { address } value hash type accessList { address storageKeys } index}}}';
    // geth's expected answer, verbatim: the hashes and the sender follow from geth's key and transactions alone.
    const want =
      '{"block":{"number":"0x1","transactions":[{"from":{"address":"0x71562b71999873db5b286df957af199ec94617f7"},"to":{"address":"0x0000000000000000000000000000000000000dad"},"value":"0x64","hash":"0xd864c9d7d37fade6b70164740540c06dd58bb9c3f6b46101908d6339db6a6a7b","type":"0x0","accessList":[],"index":"0x0"},{"from":{"address":"0x71562b71999873db5b286df957af199ec94617f7"},"to":{"address":"0x0000000000000000000000000000000000000dad"},"value":"0x32","hash":"0x19b35f8187b4e15fb59a9af469dca5dfa3cd363c11d372058c12f6482477b474","type":"0x1","accessList":[{"address":"0x0000000000000000000000000000000000000dad","storageKeys":["0x0000000000000000000000000000000000000000000000000000000000000000"]}],"index":"0x1"}]}}';
    expect(await data(query)).toBe(want);
    expect(KEY.address.toLowerCase()).toBe('0x71562b71999873db5b286df957af199ec94617f7');
  });

  it('gives the raw transaction and receipt as eth_getRawTransactionByHash and debug_getRawReceipts do', async () => {
    const hash = '0x19b35f8187b4e15fb59a9af469dca5dfa3cd363c11d372058c12f6482477b474';
    const r = JSON.parse(await data(`{transaction(hash:"${hash}"){raw rawReceipt status gasUsed yParity gasPrice}}`));
    const raw = await chain.registry.lookupMethod('eth_getRawTransactionByHash')?.([hash], {} as never);
    expect(r.transaction.raw).toBe(raw);
    const receipts = (await chain.registry.lookupMethod('debug_getRawReceipts')?.(['0x1'], {} as never)) as string[];
    expect(r.transaction.rawReceipt).toBe(receipts[1]);
    expect(r.transaction.rawReceipt.startsWith('0x01')).toBe(true);
    expect(r.transaction.status).toBe('0x1');
    expect(r.transaction.gasPrice).toBe('0x3b9aca00');
    expect(r.transaction.yParity).toMatch(/^0x[01]$/);
  });
});

describe('concurrent resolvers (TestGraphQLConcurrentResolvers)', () => {
  const dad = LOGGER;
  it.each([
    [
      'transactions race to resolve the block hash',
      '{block { transactions { logs { account { address } } } } }',
      () =>
        `{"block":{"transactions":[${Array(3)
          .fill(`{"logs":[{"account":{"address":"${dad}"}},{"account":{"address":"${dad}"}}]}`)
          .join(',')}]}}`,
    ],
    [
      'fields of a log transaction race to resolve it',
      '{block { logs(filter: {}) { transaction { nonce value gasPrice }}}}',
      () =>
        `{"block":{"logs":[${[0, 0, 1, 1, 2, 2]
          .map((n) => `{"transaction":{"nonce":"0x${n}","value":"0x0","gasPrice":"0x3b9aca00"}}`)
          .join(',')}]}}`,
    ],
    [
      'transactions race to read the receipts',
      '{block { transactions { status gasUsed } } }',
      () => `{"block":{"transactions":[${Array(3).fill('{"status":"0x1","gasUsed":"0x5508"}').join(',')}]}}`,
    ],
    [
      'block fields race to resolve header and body',
      '{ block { number hash gasLimit ommerCount transactionCount } }',
      () =>
        `{"block":{"number":"0x2","hash":"${chain.block2}","gasLimit":"0xaf79e0","ommerCount":"0x0","transactionCount":"0x3"}}`,
    ],
    [
      "a transaction's block fields race",
      '',
      () =>
        `{"transaction":{"block":{"number":"0x2","hash":"${chain.block2}","gasLimit":"0xaf79e0","ommerCount":"0x0","transactionCount":"0x3"}}}`,
    ],
    [
      'account fields race to resolve the state',
      `{ block { account(address: "${dad}") { balance transactionCount code } } }`,
      () =>
        '{"block":{"account":{"balance":"0x0","transactionCount":"0x0","code":"0x60006000a060006000a060006000f3"}}}',
    ],
    [
      'a missing account',
      '{ block { account(address: "0x1111111111111111111111111111111111111111") { balance transactionCount code } } }',
      () => '{"block":{"account":{"balance":"0x0","transactionCount":"0x0","code":"0x"}}}',
    ],
  ])('%s', async (_, query, want) => {
    const q =
      query ||
      `{ transaction(hash: "${chain.lastTx}") { block { number hash gasLimit ommerCount transactionCount } } }`;
    expect(await data(q)).toBe(want());
  });
});

describe('withdrawals (TestWithdrawals)', () => {
  it('has none before Shanghai', async () => {
    expect(await data('{block(number: 0) { withdrawalsRoot withdrawals { index } } }')).toBe(
      '{"block":{"withdrawalsRoot":null,"withdrawals":null}}',
    );
  });

  it("lists block 1's withdrawal under geth's root", async () => {
    expect(await data('{block(number: 1) { withdrawalsRoot withdrawals { validator amount } } }')).toBe(
      '{"block":{"withdrawalsRoot":"0x8418fc1a48818928f6692f148e9b10e99a88edc093b095cb8ca97950284b553d","withdrawals":[{"validator":"0x5","amount":"0xa"}]}}',
    );
  });
});

describe('max depth (TestGraphQLMaxDepth)', () => {
  const nested = (levels: number) => `{block{${'ommers{'.repeat(levels)}number${'}'.repeat(levels)}}}`;

  it(`refuses a query nested deeper than ${MAX_QUERY_DEPTH}`, async () => {
    const r = await run(nested(MAX_QUERY_DEPTH + 1));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).errors[0].message).toMatch(/exceeds max depth 20/);
  });

  it('runs a query at exactly the limit', async () => {
    // block (1) + 18 ommers levels + number (20)
    const r = await run(nested(MAX_QUERY_DEPTH - 2));
    expect(r.status).toBe(200);
  });

  it('counts fields reached through fragments', async () => {
    const r = await run(
      `query { ...F } fragment F on Query { block { ${'parent { '.repeat(MAX_QUERY_DEPTH)}number${' }'.repeat(MAX_QUERY_DEPTH)} } }`,
    );
    expect(r.status).toBe(400);
  });
});

describe('the rest of the schema', () => {
  it('reads headers, blob gas and the parent link', async () => {
    const r = JSON.parse(
      await data(
        '{block(number:2){parent{hash number} hash nonce miner{address} baseFeePerGas nextBaseFeePerGas blobGasUsed excessBlobGas withdrawalsRoot slotNumber blockAccessListHash ommers{number} ommerAt(index:0){number} transactionAt(index:2){hash} rawHeader raw}}',
      ),
    );
    const b = r.block;
    expect(b.parent).toEqual({ hash: chain.block1, number: '0x1' });
    expect(b.hash).toBe(chain.block2);
    expect(b.nonce).toBe('0x0000000000000000');
    expect(b.blobGasUsed).toBe('0x0');
    expect(b.excessBlobGas).toBe('0x0');
    expect(b.slotNumber).toBeNull();
    expect(b.ommers).toEqual([]);
    expect(b.ommerAt).toBeNull();
    expect(b.transactionAt.hash).toBe(chain.lastTx);
    // The header and block encodings hash to the block hash and hold the header, as eth_getBlockByNumber reports.
    const json = (await chain.registry.lookupMethod('eth_getBlockByNumber')?.(['0x2', false], {} as never)) as Record<
      string,
      string
    >;
    expect(b.baseFeePerGas).toBe(json.baseFeePerGas);
    expect(b.withdrawalsRoot).toBe(json.withdrawalsRoot);
    const { keccak256 } = await import('../../../../../src/main/native/keccak.js');
    expect(`0x${Buffer.from(keccak256(Buffer.from(b.rawHeader.slice(2), 'hex'))).toString('hex')}`).toBe(chain.block2);
    expect(b.raw.length).toBeGreaterThan(b.rawHeader.length);
    // eth_feeHistory's next base fee for the block after 2.
    const fh = (await chain.registry.lookupMethod('eth_feeHistory')?.(['0x1', '0x2', []], {} as never)) as {
      baseFeePerGas: string[];
    };
    expect(b.nextBaseFeePerGas).toBe(fh.baseFeePerGas[1]);
  });

  it('reads accounts and storage at a given block', async () => {
    const r = JSON.parse(
      await data(
        `{a: block(number:0){account(address:"${KEY.address}"){balance transactionCount}} b: block(number:1){account(address:"${KEY.address}"){transactionCount} } c: block{account(address:"${DAD}"){storage(slot:"0x${'00'.repeat(32)}") code}}}`,
      ),
    );
    expect(r.a.account).toEqual({ balance: '0x38d7ea4c68000', transactionCount: '0x0' });
    expect(r.b.account).toEqual({ transactionCount: '0x2' });
    expect(r.c.account).toEqual({ storage: `0x${'00'.repeat(32)}`, code: '0x58585454' });
  });

  it('filters logs by range and address and keeps eth_getLogs positions', async () => {
    const r = JSON.parse(
      await data(
        `{logs(filter:{fromBlock:0, toBlock:2, addresses:["${LOGGER}"]}){index data topics account{address} transaction{hash index from{address}}}}`,
      ),
    );
    expect(r.logs).toHaveLength(6);
    expect(r.logs.map((l: { index: string }) => l.index)).toEqual(['0x0', '0x1', '0x2', '0x3', '0x4', '0x5']);
    expect(r.logs[5].transaction.hash).toBe(chain.lastTx);
    expect(r.logs[5].transaction.from.address).toBe(KEY2.address.toLowerCase());
    const none = JSON.parse(await data(`{logs(filter:{fromBlock:0, toBlock:1}){index}}`));
    expect(none.logs).toEqual([]);
    const bad = await run('{logs(filter:{fromBlock:2, toBlock:1}){index}}');
    expect(bad.status).toBe(400);
  });

  it('serves blocks(from, to) and stops at the head', async () => {
    expect(await data('{blocks(from:1){number}}')).toBe('{"blocks":[{"number":"0x1"},{"number":"0x2"}]}');
    expect(await data('{blocks(from:0, to:9){number}}')).toBe(
      '{"blocks":[{"number":"0x0"},{"number":"0x1"},{"number":"0x2"}]}',
    );
    expect((await run('{blocks(from:2, to:1){number}}')).status).toBe(400);
  });

  it('answers a reverted call with status 0 instead of an error', async () => {
    // 0xdad's first SLOAD (2100 gas, cold) does not fit in 500 gas: out of gas, all of it used.
    const r = JSON.parse(await data(`{block{call(data:{to:"${DAD}", gas: 21500}){status gasUsed data}}}`));
    expect(r.block.call).toEqual({ status: '0x0', gasUsed: '0x53fc', data: '0x' });
    // eth_call answers the same message with an error; GraphQL with a result.
    const ok = JSON.parse(await data(`{block{call(data:{to:"${DAD}", gas: 30000}){status gasUsed}}}`));
    expect(ok.block.call.status).toBe('0x1');
  });

  it('reads chain id, fees and the pending state through the eth handlers', async () => {
    const r = JSON.parse(
      await data(
        `{chainID gasPrice maxPriorityFeePerGas syncing{currentBlock} pending{transactionCount transactions{hash} account(address:"${KEY.address}"){transactionCount}}}`,
      ),
    );
    const call = (m: string) => chain.registry.lookupMethod(m)?.([], {} as never);
    expect(r.chainID).toBe('0x539');
    expect(r.gasPrice).toBe(await call('eth_gasPrice'));
    expect(r.maxPriorityFeePerGas).toBe(await call('eth_maxPriorityFeePerGas'));
    expect(r.syncing).toBeNull();
    expect(r.pending).toEqual({ transactionCount: '0x0', transactions: [], account: { transactionCount: '0x2' } });
  });

  it('submits a raw transaction through eth_sendRawTransaction and then finds it pending', async () => {
    const signed = await KEY.signTransaction({
      type: 'eip1559',
      chainId: 1337,
      nonce: 2,
      to: DAD,
      gas: 50_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const sent = await run('mutation($d: Bytes!){sendRawTransaction(data:$d)}', { d: signed });
    expect(sent.status, sent.body).toBe(200);
    const hash = JSON.parse(sent.body).data.sendRawTransaction;
    const r = JSON.parse(
      await data(
        `{transaction(hash:"${hash}"){hash nonce block { number } index status maxFeePerGas effectiveGasPrice from{address}} pending{transactionCount account(address:"${KEY.address}"){transactionCount}}}`,
      ),
    );
    expect(r.transaction).toEqual({
      hash,
      nonce: '0x2',
      block: null,
      index: null,
      status: null,
      maxFeePerGas: '0x2540be400',
      effectiveGasPrice: null,
      from: { address: KEY.address.toLowerCase() },
    });
    expect(r.pending).toEqual({ transactionCount: '0x1', account: { transactionCount: '0x3' } });
    // A second submission of the same transaction is refused by the pool: an error, 400.
    const again = await run('mutation($d: Bytes!){sendRawTransaction(data:$d)}', { d: signed });
    expect(again.status).toBe(400);
  });

  it('rejects malformed scalars with 400', async () => {
    for (const q of [
      '{block(hash:"0x12"){number}}',
      '{transaction(hash:"abc"){hash}}',
      '{block{account(address:"0x1234"){balance}}}',
      '{block{call(data:{value:"0x0001"}){status}}}',
    ]) {
      const r = await run(q);
      expect(r.status, q).toBe(400);
    }
    expect((await run(`{block(number:1, hash:"0x${'11'.repeat(32)}"){number}}`)).status).toBe(400);
  });
});
