// JSON-RPC over HTTP: geth's handler stack (vhosts, CORS, prefix, content checks, body limit, gzip) and stopping.
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRpcServer, type HttpRpcServerOptions } from '../../../../../src/main/common/rpc/http.js';
import { postJson, rawRequest, recordingLogger, testRegistry } from './helpers.js';

const servers: HttpRpcServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(opts: Partial<HttpRpcServerOptions> = {}) {
  const { registry, release } = testRegistry();
  const server = new HttpRpcServer(
    { host: '127.0.0.1', port: 0, http: { apis: [] }, ...opts },
    { registry, logger: recordingLogger() },
  );
  servers.push(server);
  const address = await server.start();
  return { server, url: address.url, release };
}

const CHAIN_ID = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}';

describe('HTTP transport', () => {
  it('serves a POST with a JSON body and returns the bound port', async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await postJson(url, CHAIN_ID);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe('{"jsonrpc":"2.0","id":1,"result":"0x384"}');
  });

  it('answers a parse error with geth’s exact body', async () => {
    const { url } = await start();
    const res = await postJson(url, '{"jsonrpc":');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  });

  it('ignores whatever follows the first JSON value of the body', async () => {
    const { url } = await start();
    expect((await postJson(url, `${CHAIN_ID} junk`)).text).toBe('{"jsonrpc":"2.0","id":1,"result":"0x384"}');
  });

  it('answers an empty body or a notification with 200 and no body', async () => {
    const { url } = await start();
    const empty = await postJson(url, '');
    expect([empty.status, empty.text]).toEqual([200, '']);
    const note = await postJson(url, '{"jsonrpc":"2.0","method":"eth_chainId"}');
    expect([note.status, note.text]).toEqual([200, '']);
  });

  it('treats an empty GET as a health check', async () => {
    const { url } = await start();
    const res = await rawRequest(url, { method: 'GET' });
    expect([res.status, res.text]).toEqual([200, '']);
  });

  it('refuses PUT/DELETE (405), unknown content types (415) and bodies over the limit (413)', async () => {
    const { url } = await start({ bodyLimit: 100 });
    const put = await rawRequest(url, {
      method: 'PUT',
      body: CHAIN_ID,
      headers: { 'content-type': 'application/json' },
    });
    expect([put.status, put.text]).toEqual([405, 'method not allowed\n']);
    const text = await rawRequest(url, { body: CHAIN_ID, headers: { 'content-type': 'text/plain' } });
    expect([text.status, text.text]).toEqual([415, 'invalid content type, only application/json is supported\n']);
    const rpcType = await rawRequest(url, {
      body: CHAIN_ID,
      headers: { 'content-type': 'application/json-rpc; charset=utf-8' },
    });
    expect(rpcType.status).toBe(200);
    const big = await postJson(url, `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["${'x'.repeat(200)}"]}`);
    expect(big.status).toBe(413);
    expect(big.text).toMatch(/^content length too large \(\d+>100\)\n$/);
  });

  it('serves geth’s default body limit of 5 MiB', async () => {
    const { url } = await start();
    const fits = await postJson(
      url,
      `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["${'x'.repeat(4_000_000)}"]}`,
    );
    expect(fits.status).toBe(200);
    const tooBig = await postJson(
      url,
      `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["${'x'.repeat(6_000_000)}"]}`,
    );
    expect(tooBig.status).toBe(413);
  });

  it('compresses answers for clients that accept gzip', async () => {
    const { url } = await start();
    const res = await postJson(url, CHAIN_ID, { 'accept-encoding': 'gzip, deflate' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.body).toString()).toBe('{"jsonrpc":"2.0","id":1,"result":"0x384"}');
    // Error answers written outside normal processing are never compressed (geth's identity mark).
    const parse = await postJson(url, '{', { 'accept-encoding': 'gzip' });
    expect(parse.headers['content-encoding']).toBeUndefined();
    const off = await start({ http: { apis: [], gzip: false } });
    expect(
      (await postJson(off.url, CHAIN_ID, { 'accept-encoding': 'gzip' })).headers['content-encoding'],
    ).toBeUndefined();
  });

  it('compresses small answers here and large ones on the thread pool, both to the same bytes', async () => {
    const { url } = await start();
    for (const size of [10, 600, 70_000, 300_000]) {
      const res = await postJson(url, `{"jsonrpc":"2.0","id":2,"method":"test_big","params":[${size}]}`, {
        'accept-encoding': 'gzip',
      });
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(res.body).toString()).toBe(`{"jsonrpc":"2.0","id":2,"result":"${'x'.repeat(size)}"}`);
    }
  });

  it('answers slow requests -32002 after the request timeout', async () => {
    const { url } = await start({ requestTimeoutMs: 50 });
    const res = await postJson(url, '{"jsonrpc":"2.0","id":9,"method":"test_wait"}');
    expect(res.text).toBe('{"jsonrpc":"2.0","id":9,"error":{"code":-32002,"message":"request timed out"}}');
  });

  it('applies the batch limits', async () => {
    const { url } = await start({ batchRequestLimit: 1 });
    const res = await postJson(url, `[${CHAIN_ID},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]`);
    expect(res.text).toBe('[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"batch too large"}}]');
  });

  it('refuses subscriptions (no notifications over HTTP)', async () => {
    const { url } = await start();
    const res = await postJson(url, '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
    expect(res.text).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"notifications not supported"}}');
  });

  it('offers geth’s default namespaces (net, web3) when none are configured', async () => {
    const { url } = await start({ http: {} });
    expect((await postJson(url, '{"jsonrpc":"2.0","id":1,"method":"net_version"}')).text).toContain('"result":"900"');
    expect((await postJson(url, CHAIN_ID)).text).toContain('-32601');
  });
});

describe('virtual hosts (geth virtualHostHandler)', () => {
  it('accepts listed names, IP addresses and empty Host; refuses other names with 403', async () => {
    const { url } = await start({ http: { apis: [], vhosts: ['localhost', 'Node.Example'] } });
    const withHost = (host: string) => postJson(url, CHAIN_ID, { host });
    expect((await withHost('localhost:8545')).status).toBe(200);
    expect((await withHost('node.example')).status).toBe(200);
    expect((await withHost('10.1.2.3:80')).status).toBe(200);
    expect((await withHost('[::1]:8545')).status).toBe(200);
    const bad = await withHost('evil.example:8545');
    expect([bad.status, bad.text]).toEqual([403, 'invalid host specified\n']);
    expect(bad.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('accepts every name with *', async () => {
    const { url } = await start({ http: { apis: [], vhosts: ['*'] } });
    expect((await postJson(url, CHAIN_ID, { host: 'anything.example' })).status).toBe(200);
  });

  it('defaults to localhost only', async () => {
    const { url } = await start({ http: { apis: [] } });
    expect((await postJson(url, CHAIN_ID, { host: 'localhost' })).status).toBe(200);
    expect((await postJson(url, CHAIN_ID, { host: 'example.com' })).status).toBe(403);
  });
});

describe('CORS (geth with rs/cors)', () => {
  it('answers preflight for allowed origins and marks actual requests', async () => {
    const { url } = await start({ http: { apis: [], corsDomains: ['test', 'test.com'] } });
    const pre = await rawRequest(url, {
      method: 'OPTIONS',
      headers: {
        origin: 'test.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(pre.status).toBe(200);
    expect(pre.headers['access-control-allow-origin']).toBe('test.com');
    expect(pre.headers['access-control-allow-methods']).toBe('POST');
    expect(pre.headers['access-control-allow-headers']).toBe('Content-Type');
    expect(pre.headers['access-control-max-age']).toBe('600');
    const actual = await postJson(url, CHAIN_ID, { origin: 'test.com' });
    expect(actual.headers['access-control-allow-origin']).toBe('test.com');
    const other = await postJson(url, CHAIN_ID, { origin: 'bad' });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const badPre = await rawRequest(url, {
      method: 'OPTIONS',
      headers: { origin: 'bad', 'access-control-request-method': 'POST' },
    });
    expect(badPre.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends * for a wildcard configuration and nothing when CORS is not configured', async () => {
    const star = await start({ http: { apis: [], corsDomains: ['*'] } });
    expect(
      (await postJson(star.url, CHAIN_ID, { origin: 'http://a.example' })).headers['access-control-allow-origin'],
    ).toBe('*');
    const none = await start();
    expect(
      (await postJson(none.url, CHAIN_ID, { origin: 'http://a.example' })).headers['access-control-allow-origin'],
    ).toBe(undefined);
  });
});

describe('path prefix (--http.rpcprefix)', () => {
  it('serves only / without a prefix', async () => {
    const { url } = await start();
    expect(
      (await rawRequest(url, { path: '/', body: CHAIN_ID, headers: { 'content-type': 'application/json' } })).status,
    ).toBe(200);
    const other = await rawRequest(url, {
      path: '/x',
      body: CHAIN_ID,
      headers: { 'content-type': 'application/json' },
    });
    expect([other.status, other.text]).toEqual([404, '']);
  });

  it('serves every path with /, and only paths under a prefix otherwise', async () => {
    const all = await start({ http: { apis: [], prefix: '/' } });
    const post = (url: string, path: string) =>
      rawRequest(url, { path, body: CHAIN_ID, headers: { 'content-type': 'application/json' } });
    expect((await post(all.url, '/any/path')).status).toBe(200);
    const pre = await start({ http: { apis: [], prefix: '/rpc' } });
    expect((await post(pre.url, '/rpc')).status).toBe(200);
    expect((await post(pre.url, '/rpc/sub')).status).toBe(200);
    expect((await post(pre.url, '/')).status).toBe(404);
  });

  it('serves extra routes before the RPC handler', async () => {
    const { url } = await start({
      routes: {
        '/healthz': (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"version":"test"}\n');
        },
      },
    });
    expect((await rawRequest(url, { method: 'GET', path: '/healthz' })).text).toBe('{"version":"test"}\n');
  });
});

describe('stop()', () => {
  it('finishes fast with idle keep-alive connections and running requests', async () => {
    const { server, url } = await start({ stopGraceMs: 300 });
    const u = new URL(url);
    // A keep-alive connection left idle after one request.
    const agentReq = () =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          {
            host: u.hostname,
            port: u.port,
            method: 'POST',
            headers: { 'content-type': 'application/json', connection: 'keep-alive' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve());
          },
        );
        req.on('error', reject);
        req.end(CHAIN_ID);
      });
    await agentReq();
    // A request that never finishes on its own; its handler sees the abort.
    const slow = postJson(url, '{"jsonrpc":"2.0","id":1,"method":"test_gated"}').catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await server.stop();
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(await slow).toBeInstanceOf(Error);
    await expect(postJson(url, CHAIN_ID)).rejects.toThrow();
  });
});
