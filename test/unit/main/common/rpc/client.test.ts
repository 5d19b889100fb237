// The JSON-RPC client against the server: calls, batches, error mapping, timeouts, retries, JWT, headers, WS.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EncodedParams, RpcClient, retryTransient } from '../../../../../src/main/common/rpc/client.js';
import { HttpRpcServer, type HttpRpcServerOptions } from '../../../../../src/main/common/rpc/http.js';
import { createAuthRpcServer } from '../../../../../src/main/common/rpc/listeners.js';
import { RpcError, RpcTransportError } from '../../../../../src/main/protocol/jsonrpc/errors.js';
import { recordingLogger, testRegistry } from './helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function start(opts: Partial<HttpRpcServerOptions> = {}) {
  const reg = testRegistry();
  reg.registry.registerNamespace('hdr', { get: (_p, ctx) => ctx.peer.http?.userAgent });
  const server = new HttpRpcServer(
    { host: '127.0.0.1', port: 0, http: { apis: [] }, ws: { apis: [] }, ...opts },
    { registry: reg.registry, logger: recordingLogger() },
  );
  closers.push(() => server.stop());
  return { ...reg, address: await server.start() };
}

function client(url: string, opts: Partial<ConstructorParameters<typeof RpcClient>[0]> = {}): RpcClient {
  const c = new RpcClient({ url, ...opts });
  closers.push(() => c.close());
  return c;
}

for (const kind of ['http', 'ws'] as const) {
  describe(`RpcClient over ${kind}`, () => {
    const urlOf = (a: { url: string; wsUrl: string | undefined }) => (kind === 'http' ? a.url : (a.wsUrl as string));

    it('calls methods and maps remote errors to RpcError with code and data', async () => {
      const { address } = await start();
      const c = client(urlOf(address));
      expect(c.transport).toBe(kind);
      expect(await c.call('eth_chainId')).toBe('0x384');
      expect(await c.call('test_echo', [1n, Uint8Array.from([1, 2]), 'x'])).toEqual(['0x1', '0x0102', 'x']);
      // Params encoded ahead of time go out as they are (not as a JSON string).
      expect(await c.call('test_echo', new EncodedParams('["0x1",{"a":[2]}]'))).toEqual(['0x1', { a: [2] }]);
      const err = await c.call('test_fail').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RpcError);
      expect(err).toMatchObject({ code: 3, message: 'execution reverted', data: '0x08c379a0' });
      await expect(c.call('eth_nope')).rejects.toMatchObject({ code: -32601 });
    });

    it('sends batches and returns results in order', async () => {
      const { address } = await start();
      const c = client(urlOf(address));
      const results = await c.batch([
        { method: 'eth_chainId' },
        { method: 'test_fail' },
        { method: 'eth_blockNumber', params: [] },
      ]);
      expect(results[0]).toEqual({ ok: true, value: '0x384' });
      expect(results[1]?.ok).toBe(false);
      expect((results[1] as { error: RpcError }).error.code).toBe(3);
      expect(results[2]).toEqual({ ok: true, value: '0x10' });
      expect(await c.batch([])).toEqual([]);
    });

    it('gives every call the error of a batch refused as a whole', async () => {
      const { address } = await start({ batchRequestLimit: 2 });
      const c = client(urlOf(address));
      const results = await c.batch([{ method: 'eth_chainId' }, { method: 'eth_chainId' }, { method: 'eth_chainId' }]);
      for (const r of results)
        expect(r).toMatchObject({ ok: false, error: { code: -32600, message: 'batch too large' } });
    });

    it('times out a request', async () => {
      const { address } = await start();
      const c = client(urlOf(address), { timeoutMs: 100 });
      const err = await c.call('test_gated').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RpcTransportError);
      expect(err).toMatchObject({ code: 'RPC_TIMEOUT', severity: 'temporary' });
      expect(await c.call('eth_chainId')).toBe('0x384');
    });

    it('stops on the caller’s abort signal', async () => {
      const { address } = await start();
      const c = client(urlOf(address));
      const ac = new AbortController();
      const p = c.call('test_gated', [], { signal: ac.signal });
      ac.abort();
      await expect(p).rejects.toMatchObject({ code: 'RPC_ABORTED' });
    });

    it('sends custom headers', async () => {
      const { address } = await start();
      const c = client(urlOf(address), { headers: { 'user-agent': 'tern-test/1' } });
      expect(await c.call('hdr_get')).toBe('tern-test/1');
    });
  });
}

describe('RpcClient HTTP specifics', () => {
  it('raises HTTP status failures with status and body', async () => {
    const { address } = await start({ http: { apis: [], vhosts: ['localhost'] } });
    const c = client(address.url, { headers: { host: 'evil.example' } });
    const err = await c.call('eth_chainId').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcTransportError);
    expect(err).toMatchObject({ code: 'RPC_HTTP_STATUS', status: 403, body: 'invalid host specified' });
  });

  it('decompresses gzip answers, small ones inline and large ones on the thread pool', async () => {
    const { address } = await start();
    const c = client(address.url);
    expect(await c.call('test_big', [5000])).toHaveLength(5000);
    expect(await c.call('test_big', [3_000_000])).toHaveLength(3_000_000);
  });

  it('raises a broken gzip answer as a bad response', async () => {
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(Buffer.from('not gzip at all'));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => new Promise((r) => server.close(() => r())));
    const c = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await expect(c.call('eth_chainId')).rejects.toMatchObject({ code: 'RPC_BAD_RESPONSE' });
  });

  it('retries temporary failures when a policy says so', async () => {
    let hits = 0;
    const flaky: Server = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => {
        if (hits < 3) {
          res.writeHead(503).end('busy');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => flaky.close(() => resolve())));
    const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    await expect(client(url).call('x')).rejects.toMatchObject({ code: 'RPC_HTTP_STATUS', status: 503 });
    hits = 0;
    const seen: number[] = [];
    const c = client(url, {
      retry: (info) => {
        seen.push(info.attempt);
        return retryTransient({ maxAttempts: 5, baseDelayMs: 1 })(info);
      },
    });
    expect(await c.call('x')).toBe('0x1');
    expect(seen).toEqual([1, 2]);
    // JSON-RPC errors are answers, never retried.
    expect(retryTransient()({ attempt: 1, error: new RpcError(-32000, 'x'), method: 'm' })).toBeUndefined();
  });

  it('raises connection failures as temporary transport errors', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await client(`http://127.0.0.1:${port}`)
      .call('x')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RPC_CONNECTION', severity: 'temporary' });
  });

  it('refuses subscriptions over HTTP', async () => {
    const { address } = await start();
    await expect(client(address.url).subscribe('eth', ['newHeads'], () => {})).rejects.toMatchObject({ code: -32601 });
  });
});

describe('RpcClient with JWT', () => {
  it('reaches the authenticated endpoint over HTTP and WS with fresh tokens, and fails without', async () => {
    const secret = randomBytes(32);
    const { registry } = testRegistry();
    const server = createAuthRpcServer(
      { host: '127.0.0.1', port: 0, jwtSecret: secret },
      { registry, logger: recordingLogger() },
    );
    closers.push(() => server.stop());
    const { url, wsUrl } = await server.start();
    expect(await client(url, { jwtSecret: secret }).call('engine_exchangeCapabilities')).toEqual(['engine_x']);
    expect(await client(wsUrl as string, { jwtSecret: secret }).call('engine_exchangeCapabilities')).toEqual([
      'engine_x',
    ]);
    await expect(client(url).call('engine_exchangeCapabilities')).rejects.toMatchObject({
      code: 'RPC_HTTP_STATUS',
      status: 401,
      body: 'missing token',
    });
    await expect(client(wsUrl as string, { jwtSecret: randomBytes(32) }).call('eth_chainId')).rejects.toMatchObject({
      code: 'RPC_HTTP_STATUS',
      status: 401,
    });
  });
});

describe('RpcClient subscriptions (WS)', () => {
  it('delivers notifications, unsubscribes, and reports a closed connection', async () => {
    const { address, subs } = await start();
    const c = client(address.wsUrl as string);
    const got: unknown[] = [];
    const errors: Error[] = [];
    const sub = await c.subscribe('eth', ['newHeads'], (r) => got.push(r), { onError: (e) => errors.push(e) });
    expect(sub.id).toMatch(/^0x/);
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([{ number: '0x0', early: true }]);
    subs[0]?.notify('0x1');
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([{ number: '0x0', early: true }, '0x1']);
    expect(await sub.unsubscribe()).toBe(true);
    expect(subs[0]?.signal.aborted).toBe(true);

    const second = await c.subscribe('eth', ['newHeads'], () => {}, { onError: (e) => errors.push(e) });
    expect(second.id).not.toBe(sub.id);
    await closers.shift()?.(); // stop the server
    await new Promise((r) => setTimeout(r, 50));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'RPC_CONNECTION' });
  });
});
