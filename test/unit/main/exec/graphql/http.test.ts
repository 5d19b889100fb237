// GraphQL over the HTTP-RPC listener as geth serves it: the paths, POST and GET, status codes (400 with errors,
// 404 when GraphQL is off, 413 past 5 MiB), its own virtual hosts and CORS, gzip, and the query page.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRpcServer } from '../../../../../src/main/common/rpc/http.js';
import type { RpcHandler } from '../../../../../src/main/common/rpc/registry.js';
import { graphqlRoutes } from '../../../../../src/main/exec/graphql/http.js';
import { buildGraphqlChain, type GraphqlTestChain, logger, serveHttp } from './chain.js';

let chain: GraphqlTestChain;
let server: Awaited<ReturnType<typeof serveHttp>>;
beforeAll(async () => {
  chain = await buildGraphqlChain();
  server = await serveHttp(chain, { corsDomains: ['https://app.example'] });
});
afterAll(async () => {
  await server.stop();
  await chain.close();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('GraphQL on the HTTP-RPC listener', () => {
  it('answers a POSTed query with JSON at /graphql and below /graphql/', async () => {
    for (const path of ['/graphql', '/graphql/', '/graphql/anything']) {
      const res = await post(path, '{"query": "{block{number}}","variables": null}');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text()).toBe('{"data":{"block":{"number":"0x2"}}}');
    }
  });

  it('answers GET with query parameters (variables as JSON)', async () => {
    const q = new URLSearchParams({
      query: 'query($n: Long){block(number:$n){number}}',
      variables: '{"n":"0x1"}',
    });
    const res = await fetch(`${server.url}/graphql?${q}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { block: { number: '0x1' } } });
  });

  it('refuses a mutation over GET', async () => {
    const q = new URLSearchParams({ query: 'mutation{sendRawTransaction(data:"0x00")}' });
    const res = await fetch(`${server.url}/graphql?${q}`);
    expect(res.status).toBe(405);
    expect(((await res.json()) as { errors: unknown[] }).errors).toHaveLength(1);
  });

  it('answers 400 with an errors array for a bad query', async () => {
    const res = await post('/graphql', '{"query": "{bleh{number}}"}');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as { errors: Array<{ locations: unknown }> };
    expect(Array.isArray(body.errors)).toBe(true);
    expect(body.errors[0].locations).toEqual([{ line: 1, column: 2 }]);
  });

  it('answers 400 for a body that is not one JSON object', async () => {
    for (const body of [
      '',
      'not json',
      '{"query":"{block{number}}"} {}',
      '[]',
      '{"query": 5}',
      '{"query":"{block{number}}","variables":[1]}',
    ]) {
      const res = await post('/graphql', body);
      expect(res.status, body).toBe(400);
    }
  });

  it('answers 413 past 5 MiB', async () => {
    const res = await post('/graphql', `{"query":"${'a'.repeat(5 * 1024 * 1024)}"}`);
    expect(res.status).toBe(413);
  });

  it('checks its own virtual hosts (default localhost)', async () => {
    const { request } = await import('node:http');
    const status = (url: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${url}/graphql`,
          { method: 'POST', headers: { host, 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{"query":"{block{number}}"}');
      });
    expect(await status(server.url, 'localhost:8545')).toBe(200);
    expect(await status(server.url, 'evil.example')).toBe(403);
    const open = await serveHttp(chain, { vhosts: ['*'] });
    try {
      expect(await status(open.url, 'evil.example')).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it('applies --graphql.corsdomain', async () => {
    const allowed = await post('/graphql', '{"query":"{block{number}}"}', { origin: 'https://app.example' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await post('/graphql', '{"query":"{block{number}}"}', { origin: 'https://other.example' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${server.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
  });

  it('compresses for clients that accept gzip', async () => {
    const { request } = await import('node:http');
    const body = await new Promise<{ encoding: string | undefined; data: Buffer }>((resolve, reject) => {
      const req = request(
        `${server.url}/graphql`,
        { method: 'POST', headers: { 'accept-encoding': 'gzip', 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ encoding: res.headers['content-encoding'], data: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end('{"query":"{block{number}}"}');
    });
    expect(body.encoding).toBe('gzip');
    expect(gunzipSync(body.data).toString()).toBe('{"data":{"block":{"number":"0x2"}}}');
  });

  it('serves the query page at /graphql/ui, loading nothing from the network', async () => {
    for (const path of ['/graphql/ui', '/graphql/ui/', '/graphql/ui/whatever']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html');
      const html = await res.text();
      expect(html).toContain('<textarea id="query"');
      expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    }
    const postUi = await fetch(`${server.url}/graphql/ui`, { method: 'POST', body: '{}' });
    expect(postUi.status).toBe(405);
  });

  it('keeps JSON-RPC on /', async () => {
    const res = await post('/', '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}');
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x2' });
  });
});

describe('the request timeout', () => {
  it('answers `request timed out` once the timeout passes and cancels the resolvers, as geth does', async () => {
    let cancelled: Promise<boolean> | undefined;
    // eth_gasPrice made slow: it resolves after 300 ms, or reports the cancellation it sees.
    const slowGasPrice: RpcHandler = (_params, ctx) => {
      cancelled = new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), 300);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      return cancelled.then(() => '0x1');
    };
    const deps = {
      ...chain.deps,
      method: (name: string) => (name === 'eth_gasPrice' ? slowGasPrice : chain.registry.lookupMethod(name)),
    };
    const server = new HttpRpcServer(
      { host: '127.0.0.1', port: 0, http: {}, routes: graphqlRoutes(deps, { requestTimeoutMs: 50 }, logger) },
      { registry: chain.registry, logger },
    );
    const { url } = await server.start();
    try {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{gasPrice}"}',
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('{"errors":[{"message":"request timed out"}]}');
      expect(await cancelled).toBe(true);
    } finally {
      await server.stop();
    }
  });
});

describe('GraphQL off (TestGraphQLHTTPOnSamePort_GQLRequest_Unsuccessful)', () => {
  it('answers 404 at /graphql and /graphql/ui', async () => {
    const off = await serveHttp(chain, false);
    try {
      const res = await fetch(`${off.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query": "{block{number}}","variables": null}',
      });
      expect(res.status).toBe(404);
      expect((await fetch(`${off.url}/graphql/ui`)).status).toBe(404);
    } finally {
      await off.stop();
    }
  });
});
