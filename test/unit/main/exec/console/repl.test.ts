import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { consoleObjects, quantity } from '../../../../../src/main/exec/console/bridge.js';
import { execStatement, formatValue, runInteractive } from '../../../../../src/main/exec/console/repl.js';
import type { ConsoleTransport } from '../../../../../src/main/exec/console/transport.js';

/** Answers like a node at block 0x14 and records every call. */
function fakeTransport(): ConsoleTransport & { calls: Array<[string, readonly unknown[]]> } {
  const calls: Array<[string, readonly unknown[]]> = [];
  return {
    endpoint: 'fake',
    calls,
    async call(method, params) {
      calls.push([method, params]);
      if (method === 'eth_blockNumber') return '0x14';
      if (method === 'eth_getBalance') return '0xde0b6b3a7640000000';
      if (method === 'eth_getBlockByNumber') return { number: params[0] };
      if (method === 'eth_fail') throw new Error('nonce too low');
      return null;
    },
    async close() {},
  };
}

describe('console bridge', () => {
  it('decodes quantities as geth prints them', () => {
    expect(quantity('0x14')).toBe(20);
    expect(quantity('0xde0b6b3a7640000000')).toBe(0xde0b6b3a7640000000n);
    expect(quantity('0xzz')).toBe('0xzz');
    expect(formatValue(10n ** 20n)).toBe('100000000000000000000');
  });

  it('maps geth console calls to JSON-RPC', async () => {
    const t = fakeTransport();
    const o = consoleObjects(t) as {
      eth: Record<string, (...a: unknown[]) => Promise<unknown>> & { blockNumber: Promise<unknown> };
    };
    expect(await o.eth.blockNumber).toBe(20);
    await o.eth.getBlock?.(5, true);
    await o.eth.getBlock?.(`0x${'ab'.repeat(32)}`);
    await o.eth.getBalance?.('0x01');
    expect(t.calls.slice(1)).toEqual([
      ['eth_getBlockByNumber', ['0x5', true]],
      ['eth_getBlockByHash', [`0x${'ab'.repeat(32)}`, false]],
      ['eth_getBalance', ['0x01', 'latest']],
    ]);
  });

  it('--exec evaluates a statement after the preloads and awaits its result', async () => {
    const t = fakeTransport();
    expect(await execStatement(t, 'eth.blockNumber', { jspath: '.' })).toBe('20');
    expect(await execStatement(t, 'var x = 2; x * 21', { jspath: '.' })).toBe('42');
    await expect(execStatement(t, "rpc.call('eth_fail')", { jspath: '.' })).rejects.toThrow(/nonce too low/);
  });
});

type Completer = (line: string, cb: (err: Error | null, res: [string[], string]) => void) => void;

describe('interactive console', () => {
  it('awaits results, prints errors and completes names with tab', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (d: Buffer) => {
      text += d.toString();
    });
    const server = await runInteractive(fakeTransport(), { jspath: '.', input, output, terminal: false });
    const completions = await new Promise<string[]>((resolve, reject) =>
      // REPLServer inherits readline's completer entry point; @types/node does not declare it.
      (server as unknown as { complete: Completer }).complete('eth.getBl', (err, res) =>
        err ? reject(err) : resolve(res[0]),
      ),
    );
    expect(completions).toEqual(expect.arrayContaining(['eth.getBlock', 'eth.getBlockByNumber', 'eth.getBlockByHash']));
    input.write('eth.blockNumber\n');
    input.write("rpc.call('eth_fail')\n");
    await new Promise((r) => setTimeout(r, 200));
    server.close();
    expect(text).toContain('20');
    expect(text).toContain('nonce too low');
  });
});
