// JSON-RPC over WebSocket: origins, prefix, shared port with HTTP, subscriptions and their cleanup, stopping.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { HttpRpcServer, type HttpRpcServerOptions } from '../../../../../src/main/common/rpc/http.js';
import { planUserListeners } from '../../../../../src/main/common/rpc/listeners.js';
import { postJson, recordingLogger, testRegistry } from './helpers.js';

const servers: HttpRpcServer[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(opts: Partial<HttpRpcServerOptions> = {}) {
  const reg = testRegistry();
  const server = new HttpRpcServer(
    { host: '127.0.0.1', port: 0, ws: { apis: [] }, ...opts },
    { registry: reg.registry, logger: recordingLogger() },
  );
  servers.push(server);
  const address = await server.start();
  return { ...reg, server, address };
}

/** Opens a socket; resolves with it, or rejects with the HTTP status of a refused upgrade. */
function connect(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    sockets.push(ws);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        reject(
          Object.assign(new Error(`HTTP ${res.statusCode}`), {
            status: res.statusCode,
            body: Buffer.concat(chunks).toString(),
          }),
        ),
      );
    });
    ws.once('error', reject);
  });
}

/** Collects the messages of a socket. */
function inbox(ws: WebSocket) {
  const messages: string[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    messages.push(data.toString());
    for (const w of waiters.splice(0)) w();
  });
  const next = async (count = 1, timeoutMs = 2000): Promise<string[]> => {
    const deadline = Date.now() + timeoutMs;
    while (messages.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} messages, got ${messages.length}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return messages.splice(0, count);
  };
  return { messages, next };
}

const closed = (ws: WebSocket): Promise<number> =>
  new Promise((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) resolve(-1);
    ws.once('close', (code) => resolve(code));
  });

describe('WebSocket transport', () => {
  it('serves calls and batches', async () => {
    const { address } = await start();
    const ws = await connect(address.wsUrl as string);
    const box = inbox(ws);
    ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
    expect(await box.next()).toEqual(['{"jsonrpc":"2.0","id":1,"result":"0x384"}']);
    ws.send('[{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":3,"method":"test_transport"}]');
    expect(await box.next()).toEqual([
      '[{"jsonrpc":"2.0","id":2,"result":"0x10"},{"jsonrpc":"2.0","id":3,"result":"ws"}]',
    ]);
  });

  it('answers a malformed message with a parse error and closes the connection (geth)', async () => {
    const { address } = await start();
    const ws = await connect(address.wsUrl as string);
    const box = inbox(ws);
    const done = closed(ws);
    ws.send('{not json');
    expect(await box.next()).toEqual(['{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}']);
    expect(await done).toBe(1000);
  });

  it('delivers notifications after the subscribe answer and stops them on unsubscribe', async () => {
    const { address, subs } = await start();
    const ws = await connect(address.wsUrl as string);
    const box = inbox(ws);
    ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    const [answer, early] = await box.next(2);
    const id = (JSON.parse(answer as string) as { result: string }).result;
    expect(answer).toBe(`{"jsonrpc":"2.0","id":1,"result":"${id}"}`);
    expect(JSON.parse(early as string)).toEqual({
      jsonrpc: '2.0',
      method: 'eth_subscription',
      params: { subscription: id, result: { number: '0x0', early: true } },
    });
    subs[0]?.notify({ number: '0x1' });
    expect(await box.next()).toEqual([
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":{"number":"0x1"}}}`,
    ]);
    ws.send(`{"jsonrpc":"2.0","id":2,"method":"eth_unsubscribe","params":["${id}"]}`);
    expect(await box.next()).toEqual(['{"jsonrpc":"2.0","id":2,"result":true}']);
    expect(subs[0]?.notify({ number: '0x2' })).toBe(false);
    ws.send('{"jsonrpc":"2.0","id":3,"method":"eth_chainId"}');
    expect(await box.next()).toEqual(['{"jsonrpc":"2.0","id":3,"result":"0x384"}']);
  });

  it('ends subscriptions when the connection closes', async () => {
    const { address, subs } = await start();
    const ws = await connect(address.wsUrl as string);
    const box = inbox(ws);
    ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    await box.next(2);
    const sub = subs[0];
    expect(sub?.signal.aborted).toBe(false);
    ws.close();
    await new Promise<void>((resolve) => sub?.signal.addEventListener('abort', () => resolve()));
    expect(sub?.notify('x')).toBe(false);
  });

  it('checks Origin as geth’s wsHandshakeValidator', async () => {
    const cases: { spec: string[]; ok: string[]; fail: string[] }[] = [
      { spec: ['*'], ok: ['http://test', 'https://foo.test:8540'], fail: [] },
      { spec: ['test'], ok: ['http://test', 'https://test:8540'], fail: ['http://test.com', 'http://testa'] },
      { spec: ['https://test'], ok: ['https://test', 'https://test:9999'], fail: ['http://test', 'https://a.test.x'] },
      { spec: ['test:8540'], ok: ['http://test:8540', 'https://test:8540'], fail: ['http://test', 'http://test:8541'] },
      {
        spec: ['localhost', 'http://127.0.0.1'],
        ok: ['http://localhost', 'https://localhost:8443', 'http://127.0.0.1:8080'],
        fail: ['https://127.0.0.1', 'http://bad'],
      },
      { spec: [], ok: ['http://localhost', 'http://localhost:8080'], fail: ['https://localhost', 'http://evil'] },
    ];
    for (const c of cases) {
      const { address } = await start({ ws: { apis: [], origins: c.spec } });
      const url = address.wsUrl as string;
      await expect(connect(url)).resolves.toBeInstanceOf(WebSocket); // no Origin header: not a browser
      for (const origin of c.ok)
        await expect(connect(url, { origin }), `${c.spec} ${origin}`).resolves.toBeInstanceOf(WebSocket);
      for (const origin of c.fail) {
        await expect(connect(url, { origin }), `${c.spec} ${origin}`).rejects.toMatchObject({
          status: 403,
          body: 'Forbidden\n',
        });
      }
    }
  });

  it('serves only the path prefix (--ws.rpcprefix)', async () => {
    const { address } = await start({ ws: { apis: [], prefix: '/ws' } });
    expect(address.wsUrl).toMatch(/\/ws$/);
    await expect(connect(`${address.wsUrl}/deeper`)).resolves.toBeInstanceOf(WebSocket);
    await expect(connect(address.url.replace('http', 'ws'))).rejects.toMatchObject({
      status: 404,
      body: 'not found\n',
    });
  });

  it('shares one port with HTTP when both use it', async () => {
    const plan = planUserListeners({
      http: { host: '127.0.0.1', port: 0, apis: ['eth'] },
      ws: { host: '127.0.0.1', port: 0, apis: ['eth'] },
    });
    expect(plan).toHaveLength(1);
    const { address } = await start(plan[0]);
    expect((await postJson(address.url, '{"jsonrpc":"2.0","id":1,"method":"test_transport"}')).text).toContain(
      '-32601',
    );
    expect((await postJson(address.url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')).text).toContain('0x384');
    const ws = await connect(address.wsUrl as string);
    const box = inbox(ws);
    ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
    expect(await box.next()).toEqual(['{"jsonrpc":"2.0","id":1,"result":"0x384"}']);
    expect(
      planUserListeners({ http: { host: '127.0.0.1', port: 8545 }, ws: { host: '127.0.0.1', port: 8546 } }),
    ).toHaveLength(2);
  });

  it('stop() closes open WebSocket connections quickly', async () => {
    const { server, address, subs } = await start();
    const ws = await connect(address.wsUrl as string);
    const box = inbox(ws);
    ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    await box.next(2);
    const done = closed(ws);
    const t0 = Date.now();
    await server.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await done).toBe(1000);
    expect(subs[0]?.signal.aborted).toBe(true);
  });
});
