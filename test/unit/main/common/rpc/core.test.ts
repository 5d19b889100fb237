// The error model and batch rules of geth's rpc/handler.go, exercised on a session without a transport.
import { describe, expect, it } from 'vitest';
import { parseErrorResponse, RpcCore, type RpcCoreOptions } from '../../../../../src/main/common/rpc/core.js';
import { firstJsonValue } from '../../../../../src/main/common/rpc/json.js';
import { recordingLogger, testRegistry } from './helpers.js';

function setup(opts: Partial<RpcCoreOptions> = {}, transport: 'http' | 'ws' = 'ws') {
  const { registry, subs } = testRegistry();
  const logger = recordingLogger();
  const core = new RpcCore(registry.select({ modules: [] }), opts, { logger });
  const sent: string[] = [];
  const session = core.session({
    peer: { transport, remoteAddr: '127.0.0.1:1' },
    send: transport === 'ws' ? (t) => sent.push(t) : undefined,
  });
  const run = async (text: string): Promise<string | undefined> => {
    const parsed = firstJsonValue(text);
    if (parsed.kind !== 'value') return parseErrorResponse();
    const outcome = await session.handle(parsed.value, parsed.text);
    outcome.written();
    return outcome.body;
  };
  return { run, session, sent, subs, logger };
}

describe('JSON-RPC messages', () => {
  it('answers a call with its id echoed exactly', async () => {
    const { run } = setup();
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"0x384"}',
    );
    expect(await run('{"jsonrpc":"2.0","id":"a","method":"eth_chainId","params":[]}')).toBe(
      '{"jsonrpc":"2.0","id":"a","result":"0x384"}',
    );
    expect(await run('{"jsonrpc":"2.0","id":1.0,"method":"eth_chainId"}')).toBe(
      '{"jsonrpc":"2.0","id":1.0,"result":"0x384"}',
    );
    expect(await run('{"jsonrpc":"2.0","id":null,"method":"eth_chainId","params":null}')).toBe(
      '{"jsonrpc":"2.0","id":null,"result":"0x384"}',
    );
  });

  it('has the parse error body geth sends', () => {
    expect(parseErrorResponse()).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  });

  it('refuses invalid requests with -32600, keeping a usable id', async () => {
    const { run } = setup();
    expect(await run('{"id":3,"method":"eth_chainId"}')).toBe(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request"}}',
    );
    expect(await run('{"jsonrpc":"2.0","id":{"x":1},"method":"eth_chainId"}')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}',
    );
    expect(await run('17')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}');
    expect(await run(`{"jsonrpc":"2.0","id":4,"method":"${'a'.repeat(2049)}"}`)).toBe(
      '{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"method name too long: 2049 \\u003e 2048"}}',
    );
  });

  it('answers unknown methods -32601 and non-array params -32602', async () => {
    const { run } = setup();
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"eth_nope"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method eth_nope does not exist/is not available"}}',
    );
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"test_echo","params":{"a":1}}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}',
    );
  });

  it('passes RpcError code and data through, e.g. execution reverted (3)', async () => {
    const { run } = setup();
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"test_fail"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x08c379a0"}}',
    );
  });

  it('turns other exceptions into -32603 without leaking them, and logs them', async () => {
    const { run, logger } = setup();
    const body = await run('{"jsonrpc":"2.0","id":1,"method":"test_crash"}');
    expect(body).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"method handler crashed"}}');
    expect(body).not.toContain('secret');
    const logged = logger.entries.find((e) => e.level === 'error');
    expect(logged?.msg).toBe('RPC method test_crash crashed');
    expect(String(logged?.ctx?.err)).toContain('secret internal detail');
  });

  it('never emits a bigint: a handler returning one gets -32603', async () => {
    const { run } = setup();
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"test_bigint"}')).toMatch(/"code":-32603/);
  });

  it('escapes results as Go does', async () => {
    const { run } = setup();
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"test_html"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"\\u003ca\\u0026b\\u003e"}',
    );
  });

  it('gives notifications and stray responses no answer', async () => {
    const { run } = setup();
    expect(await run('{"jsonrpc":"2.0","method":"eth_chainId"}')).toBeUndefined();
    expect(await run('{"jsonrpc":"2.0","method":"eth_nope"}')).toBeUndefined();
    expect(await run('{"jsonrpc":"2.0","id":1,"result":"0x1"}')).toBeUndefined();
  });

  it('offers rpc_modules for the namespaces served', async () => {
    const { run } = setup();
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"rpc_modules"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"eth":"1.0","net":"1.0","rpc":"1.0","test":"1.0","web3":"1.0"}}',
    );
  });
});

describe('batches', () => {
  it('answers each call in order, skipping notifications', async () => {
    const { run } = setup();
    expect(
      await run(
        '[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"},{"bad":true}]',
      ),
    ).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"0x384"},{"jsonrpc":"2.0","id":2,"result":"0x10"},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]',
    );
  });

  it('answers an empty batch with a single invalid-request error', async () => {
    const { run } = setup();
    expect(await run('[]')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
  });

  it('answers a batch of notifications only with nothing', async () => {
    const { run } = setup();
    expect(await run('[{"jsonrpc":"2.0","method":"eth_chainId"}]')).toBeUndefined();
  });

  it('refuses a batch over the request limit with one error carrying the first call’s id (geth)', async () => {
    const { run } = setup({ batchRequestLimit: 2 });
    const call = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"eth_chainId"}`;
    expect(await run(`[{"jsonrpc":"2.0","method":"x"},${call(7)},${call(8)}]`)).toBe(
      '[{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"batch too large"}}]',
    );
    expect(await run(`[${call(1)},${call(2)}]`)).toMatch(/^\[\{"jsonrpc":"2.0","id":1,"result"/);
  });

  it('replaces the answers after the response size limit is passed with -32003 (geth)', async () => {
    const { run } = setup({ batchResponseMaxSize: 100 });
    const big = (id: number, n: number) => `{"jsonrpc":"2.0","id":${id},"method":"test_big","params":[${n}]}`;
    const body = await run(`[${big(1, 40)},${big(2, 70)},${big(3, 5)},{"jsonrpc":"2.0","method":"test_big"}]`);
    const answers = JSON.parse(body as string) as {
      id: number;
      result?: string;
      error?: { code: number; message: string };
    }[];
    expect(answers).toHaveLength(3);
    expect(answers[0]?.result).toHaveLength(40);
    // The call that passes the limit still gets its answer; the ones after it do not.
    expect(answers[1]?.result).toHaveLength(70);
    expect(answers[2]).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32003, message: 'response too large' } });
  });

  it('times out a batch, answering the unfinished calls -32002', async () => {
    const { run } = setup({ requestTimeoutMs: 50 });
    const body = await run(
      '[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"test_wait"},{"jsonrpc":"2.0","id":3,"method":"eth_chainId"}]',
    );
    expect(body).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"0x384"},{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"request timed out"}},{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"request timed out"}}]',
    );
  });
});

describe('subscriptions on a session', () => {
  it('queues notifications until the subscribe answer is written, stops them on unsubscribe', async () => {
    const { run, sent, subs } = setup();
    const body = await run('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    const id = (JSON.parse(body as string) as { result: string }).result;
    expect(id).toMatch(/^0x[1-9a-f][0-9a-f]*$/);
    expect(sent).toEqual([
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":{"number":"0x0","early":true}}}`,
    ]);
    expect(subs[0]?.notify('0x1')).toBe(true);
    expect(sent).toHaveLength(2);
    expect(await run(`{"jsonrpc":"2.0","id":2,"method":"eth_unsubscribe","params":["${id}"]}`)).toBe(
      '{"jsonrpc":"2.0","id":2,"result":true}',
    );
    expect(subs[0]?.signal.aborted).toBe(true);
    expect(subs[0]?.notify('0x2')).toBe(false);
    expect(sent).toHaveLength(2);
    expect(await run(`{"jsonrpc":"2.0","id":3,"method":"eth_unsubscribe","params":["${id}"]}`)).toBe(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"subscription not found"}}',
    );
  });

  it('reports unknown subscriptions and bad subscribe params as geth does', async () => {
    const { run } = setup();
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["nope"]}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no \\"nope\\" subscription in eth namespace"}}',
    );
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":[1]}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"expected subscription name as first argument"}}',
    );
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe"}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}',
    );
  });

  it('refuses subscriptions where notifications cannot be sent', async () => {
    const { run } = setup({}, 'http');
    expect(await run('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}')).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"notifications not supported"}}',
    );
  });

  it('ends subscriptions when the session closes', async () => {
    const { run, session, subs } = setup();
    await run('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    expect(session.subscriptionCount).toBe(1);
    session.close();
    expect(subs[0]?.signal.aborted).toBe(true);
    expect(session.subscriptionCount).toBe(0);
  });
});

describe('API selection', () => {
  it('serves only the selected namespaces and hides authenticated ones', async () => {
    const { registry } = testRegistry();
    const logger = recordingLogger();
    const view = registry.select({ modules: ['eth', 'engine', 'admin'] });
    expect(view.namespaces()).toEqual(['eth', 'rpc']);
    expect(view.unavailableModules()).toEqual(['admin']);
    const session = new RpcCore(view, {}, { logger }).session({ peer: { transport: 'http', remoteAddr: '' } });
    const outcome = await session.handle({ jsonrpc: '2.0', id: 1, method: 'net_version' }, '');
    expect(outcome.body).toMatch(/"code":-32601/);
    const authed = registry.select({ authenticated: true });
    expect(authed.namespaces()).toContain('engine');
  });
});
