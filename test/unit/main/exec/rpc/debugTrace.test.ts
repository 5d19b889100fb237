// debug_traceTransaction / traceBlockBy* / traceCall over the execution-apis chain, checked against expectations
// derived independently of the tracers: the contract's disassembly, the receipt's gas and logs, the intrinsic gas
// of the transaction, eth_getStorageAt and eth_getCode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { CallPool } from '../../../../../src/main/exec/rpc/call.js';
import { createCallPool } from '../../../../../src/main/exec/rpc/callPool.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { buildTestChain, rpcError, serveTestChain, type TestRpc } from './chain.js';

type Log = {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
  error?: string;
};
type StructResult = { gas: number; failed: boolean; returnValue: string; structLogs: Log[] };
type Frame = Record<string, unknown> & { calls?: Frame[]; logs?: Array<Record<string, unknown>> };

// Block 2, index 3: an access-list call of the "emit" contract below (eth_getTransactionByHash fixture).
const EMIT_TX = '0xa0762610d794acddd2dca15fb7c437ada3611c886f3bea675d53d8da8a6c41b2';
const EMIT = '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df';
const EMIT_INPUT = '0xdb5306248e0313e7656d6974';
// Disassembly of the contract's genesis code 0x3680600080376000206000548082558060010160005560005263656d697460206000a2
// (the code runs off its end: geth logs a STOP there).
const EMIT_OPS: Array<[number, string]> = [
  [0, 'CALLDATASIZE'],
  [1, 'DUP1'],
  [2, 'PUSH1'],
  [4, 'DUP1'],
  [5, 'CALLDATACOPY'],
  [6, 'PUSH1'],
  [8, 'KECCAK256'],
  [9, 'PUSH1'],
  [11, 'SLOAD'],
  [12, 'DUP1'],
  [13, 'DUP3'],
  [14, 'SSTORE'],
  [15, 'DUP1'],
  [16, 'PUSH1'],
  [18, 'ADD'],
  [19, 'PUSH1'],
  [21, 'SSTORE'],
  [22, 'PUSH1'],
  [24, 'MSTORE'],
  [25, 'PUSH4'],
  [30, 'PUSH1'],
  [32, 'PUSH1'],
  [34, 'LOG2'],
  [35, 'STOP'],
];
const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const w64 = (h: string) => BigInt(h).toString(16).padStart(64, '0');

/** Intrinsic gas of a Cancun transaction with an access list (EIP-2028/2930), computed from its fields. */
function intrinsic(input: string, accessList: Array<{ storageKeys: string[] }>): number {
  let gas = 21000;
  for (const b of hexBytes(input)) gas += b === 0 ? 4 : 16;
  for (const item of accessList) gas += 2400 + 1900 * item.storageKeys.length;
  return gas;
}

// debug_traceCall runs on the call workers when they are up: the suite runs over both paths.
describe.each([
  ['inline', false],
  ['call workers', true],
] as const)('debug_trace* (%s)', (_name, pooled) => {
  let rpc: TestRpc;
  let chain: Awaited<ReturnType<typeof buildTestChain>>;
  let pool: CallPool | undefined;
  beforeAll(async () => {
    const logger = createLogger({ level: 'silent', format: 'json' }).logger;
    pool = pooled ? createCallPool(2, logger) : undefined;
    if (pooled) expect(pool).toBeDefined();
    chain = await buildTestChain(logger);
    rpc = serveTestChain(chain, {}, undefined, pool);
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
  });

  it('a looping call is refused past the response size limit, with bounded memory, and the executor is usable again', async () => {
    // Creation code JUMPDEST PUSH1 0 JUMP: loops until the gas (the 50M cap) runs out, millions of opcodes.
    const loop = { data: '0x5b600056' };
    const small = serveTestChain(chain, { traceResultMaxBytes: 100_000 }, undefined, pool);
    const err = await rpcError(small.call('debug_traceCall', [loop, 'latest']));
    expect(err.code).toBe(-32000);
    expect(err.message).toMatch(
      /^trace result exceeds the response size limit of 100000 bytes \(--rpc.batch-response-max-size\)/,
    );
    // The default bound (25 MB, as a batch answer): refused as well, without the heap growing by gigabytes.
    const before = process.memoryUsage().heapUsed;
    const big = await rpcError(rpc.call('debug_traceCall', [loop, 'latest', { timeout: '60s' }]));
    expect(big.message).toMatch(/limit of 25000000 bytes/);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(400 * 1024 * 1024);
    // A trace within the bound still answers, on the same executor; a struct logger `limit` keeps one small.
    const limited = (await small.call('debug_traceCall', [
      { ...loop, gas: '0x30000' },
      'latest',
      { limit: 50 },
    ])) as StructResult;
    expect(limited.structLogs).toHaveLength(50);
    expect(limited.structLogs.slice(0, 3).map((l) => l.op)).toEqual(['JUMPDEST', 'PUSH1', 'JUMP']);
    const traced = (await small.call('debug_traceTransaction', [EMIT_TX, { tracer: 'callTracer' }])) as Frame;
    expect(traced.gasUsed).toBe('0xca9c');
  }, 60_000);

  it('struct logger: opcode sequence, gas accounting and storage of a known contract call', async () => {
    const tx = (await rpc.call('eth_getTransactionByHash', [EMIT_TX])) as {
      gas: string;
      input: string;
      accessList: Array<{ storageKeys: string[] }>;
    };
    const receipt = (await rpc.call('eth_getTransactionReceipt', [EMIT_TX])) as { gasUsed: string };
    const r = (await rpc.call('debug_traceTransaction', [EMIT_TX])) as StructResult;
    expect(r.failed).toBe(false);
    expect(r.returnValue).toBe('0x');
    expect(r.gas).toBe(Number(receipt.gasUsed));
    expect(r.structLogs.map((l) => [l.pc, l.op])).toEqual(EMIT_OPS);
    expect(r.structLogs.every((l) => l.depth === 1)).toBe(true);

    const logs = r.structLogs;
    const intr = intrinsic(tx.input, tx.accessList);
    expect(logs[0]?.gas).toBe(Number(tx.gas) - intr);
    // No calls: each opcode's gas is what the previous one left.
    for (let i = 1; i < logs.length; i++)
      expect(logs[i]?.gas).toBe((logs[i - 1]?.gas ?? 0) - (logs[i - 1]?.gasCost ?? 0));
    // intrinsic + Σ gasCost, less the capped refund (EIP-3529), is the receipt's gas.
    const spent = intr + logs.reduce((s, l) => s + l.gasCost, 0);
    const refund = logs[logs.length - 1]?.refund ?? 0;
    expect(spent - Math.min(refund, Math.floor(spent / 5))).toBe(Number(receipt.gasUsed));

    // Stack: empty at the start; KECCAK256 sees (offset 0, size = calldata length).
    expect(logs[0]?.stack).toEqual([]);
    expect(logs[6]?.stack).toEqual([`0x${(hexBytes(EMIT_INPUT).length).toString(16)}`, '0x0']);
    // Storage: SLOAD of slot 0 reads the counter — block 1's value plus the call at index 2 of block 2 before
    // this one (so the replay ran it) — and the SSTOREs write hash→counter and counter+1.
    const counter = BigInt((await rpc.call('eth_getStorageAt', [EMIT, '0x0', '0x1'])) as string) + 1n;
    expect(BigInt((await rpc.call('eth_getStorageAt', [EMIT, '0x0', '0x2'])) as string)).toBe(counter + 1n);
    const sload = logs[8]?.storage;
    expect(sload).toEqual({ [w64('0x0')]: w64(`0x${counter.toString(16)}`) });
    const hash = `0x${Buffer.from(keccak256(hexBytes(EMIT_INPUT))).toString('hex')}`;
    expect(logs[16]?.storage).toEqual({
      [w64('0x0')]: w64(`0x${(counter + 1n).toString(16)}`),
      [w64(hash)]: w64(`0x${counter.toString(16)}`),
    });
    expect(logs[0]?.memory).toBeUndefined();
  });

  it('struct logger options: disableStack, disableStorage, enableMemory, limit', async () => {
    const r = (await rpc.call('debug_traceTransaction', [
      EMIT_TX,
      { disableStack: true, disableStorage: true, enableMemory: true, limit: 20 },
    ])) as StructResult;
    expect(r.structLogs).toHaveLength(20);
    expect(r.structLogs.some((l) => l.stack !== undefined || l.storage !== undefined)).toBe(false);
    // After CALLDATACOPY the first memory row holds the calldata, right-padded.
    expect(r.structLogs[5]?.memory).toEqual([EMIT_INPUT.slice(2).padEnd(64, '0')]);
  });

  it('callTracer: top frame fields and, with withLog, the receipt logs', async () => {
    const r = (await rpc.call('debug_traceTransaction', [EMIT_TX, { tracer: 'callTracer' }])) as Frame;
    expect(r).toEqual({
      from: '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f',
      gas: '0x186a0',
      gasUsed: '0xca9c',
      to: EMIT,
      input: EMIT_INPUT,
      value: '0x2',
      type: 'CALL',
    });
    const withLog = (await rpc.call('debug_traceTransaction', [
      EMIT_TX,
      { tracer: 'callTracer', tracerConfig: { withLog: true } },
    ])) as Frame;
    const receipt = (await rpc.call('eth_getTransactionReceipt', [EMIT_TX])) as {
      logs: Array<{ address: string; topics: string[]; data: string }>;
    };
    expect(withLog.logs).toEqual(
      receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, position: '0x0' })),
    );
  });

  it('callTracer on a creation: the new address and the deployed code', async () => {
    const block = (await rpc.call('eth_getBlockByNumber', ['0x1', false])) as { transactions: string[] };
    const hash = block.transactions[0] as string;
    const receipt = (await rpc.call('eth_getTransactionReceipt', [hash])) as {
      contractAddress: string;
      gasUsed: string;
    };
    const r = (await rpc.call('debug_traceTransaction', [hash, { tracer: 'callTracer' }])) as Frame;
    expect(r.type).toBe('CREATE');
    expect(r.to).toBe(receipt.contractAddress);
    expect(r.gasUsed).toBe(receipt.gasUsed);
    expect(r.output).toBe(await rpc.call('eth_getCode', [receipt.contractAddress, '0x1']));
  });

  it('traceBlockByNumber and traceBlockByHash: one result per transaction, in order', async () => {
    const block = (await rpc.call('eth_getBlockByNumber', ['0x2', false])) as { hash: string; transactions: string[] };
    const byNumber = (await rpc.call('debug_traceBlockByNumber', ['0x2', { tracer: 'callTracer' }])) as Array<{
      txHash: string;
      result: Frame;
    }>;
    expect(byNumber.map((t) => t.txHash)).toEqual(block.transactions);
    const single = await rpc.call('debug_traceTransaction', [block.transactions[3], { tracer: 'callTracer' }]);
    expect(byNumber[3]?.result).toEqual(single);
    const byHash = await rpc.call('debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }]);
    expect(byHash).toEqual(byNumber);
    expect((await rpcError(rpc.call('debug_traceBlockByNumber', ['0x0']))).message).toBe('genesis is not traceable');
    expect(await rpcError(rpc.call('debug_traceBlockByNumber', ['0x100']))).toEqual({
      code: -32000,
      message: 'block #256 not found',
    });
  });

  it('traceCall: nested CALL, STATICCALL and DELEGATECALL frames of a creation', async () => {
    const addr = EMIT.slice(2);
    // CALL emit(); STATICCALL emit() (it writes storage: write protection); DELEGATECALL the identity precompile.
    const code = `0x6000600060006000600073${addr}5af150600060006000600073${addr}5afa506000600060006000${'6004'}5af45000`;
    const args = { from: '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f', data: code, gas: '0x100000' };
    const r = (await rpc.call('debug_traceCall', [
      args,
      'latest',
      { tracer: 'callTracer', tracerConfig: { withLog: true } },
    ])) as Frame;
    expect(r.type).toBe('CREATE');
    expect(r.gas).toBe('0x100000');
    const calls = r.calls ?? [];
    expect(calls.map((c) => c.type)).toEqual(['CALL', 'STATICCALL', 'DELEGATECALL']);
    expect(calls.map((c) => c.to)).toEqual([EMIT, EMIT, '0x0000000000000000000000000000000000000004']);
    expect(calls[0]?.value).toBe('0x0');
    expect(calls[1]?.value).toBeUndefined();
    expect(calls[1]?.error).toBe('write protection');
    expect(calls[1]?.gasUsed).toBe(calls[1]?.gas);
    expect(calls[0]?.logs).toHaveLength(1);
    expect(calls[0]?.logs?.[0]?.position).toBe('0x0');
    expect(r.logs).toBeUndefined();

    const top = (await rpc.call('debug_traceCall', [
      args,
      'latest',
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
    ])) as Frame;
    expect(top.calls).toBeUndefined();
    expect(top.gasUsed).toBe(r.gasUsed);

    // The struct logger agrees: the first opcode inside the CALL has the gas the call frame was given.
    const s = (await rpc.call('debug_traceCall', [args, 'latest'])) as StructResult;
    const inner = s.structLogs.find((l) => l.depth === 2);
    expect(inner?.gas).toBe(Number(calls[0]?.gas));
    const callStep = s.structLogs.find((l) => l.op === 'CALL');
    // A CALL's cost is the cold account access (EIP-2929) plus the gas it hands over.
    expect((callStep?.gasCost ?? 0) - Number(calls[0]?.gas)).toBe(2600);
  });

  it('errors: unknown tracer, unknown transaction, timeout, pending traceCall', async () => {
    expect(await rpcError(rpc.call('debug_traceTransaction', [EMIT_TX, { tracer: 'fooTracer' }]))).toEqual({
      code: -32000,
      message: 'ReferenceError: fooTracer is not defined',
    });
    expect(await rpcError(rpc.call('debug_traceTransaction', [`0x${'11'.repeat(32)}`]))).toEqual({
      code: -32000,
      message: 'transaction not found',
    });
    expect(await rpcError(rpc.call('debug_traceTransaction', [EMIT_TX, { timeout: '1ns' }]))).toEqual({
      code: -32000,
      message: 'execution timeout',
    });
    expect((await rpcError(rpc.call('debug_traceTransaction', [EMIT_TX, { timeout: 'soon' }]))).message).toBe(
      'time: invalid duration "soon"',
    );
    expect((await rpcError(rpc.call('debug_traceCall', [{ to: EMIT }, 'pending']))).message).toBe(
      'tracing on top of pending is not supported',
    );
    // The executor is usable again after an aborted trace.
    const again = (await rpc.call('debug_traceTransaction', [EMIT_TX, { tracer: 'callTracer' }])) as Frame;
    expect(again.gasUsed).toBe('0xca9c');
  });
});
