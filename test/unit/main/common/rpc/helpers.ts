// Shared pieces of the RPC tests: a recording logger, a raw HTTP request helper (full control over Host, Origin
// and content headers) and a small registry.
import { request } from 'node:http';
import type { Logger, LogLevel } from '../../../../../src/main/common/logger/index.js';
import { RpcRegistry, type Subscription } from '../../../../../src/main/common/rpc/registry.js';
import { RpcError } from '../../../../../src/main/protocol/jsonrpc/errors.js';

export interface LogEntry {
  level: LogLevel;
  msg: string;
  ctx: Record<string, unknown> | undefined;
}

export function recordingLogger(entries: LogEntry[] = []): Logger & { entries: LogEntry[] } {
  const make = (): Logger & { entries: LogEntry[] } => ({
    entries,
    error: (msg, ctx) => entries.push({ level: 'error', msg, ctx }),
    warn: (msg, ctx) => entries.push({ level: 'warn', msg, ctx }),
    info: (msg, ctx) => entries.push({ level: 'info', msg, ctx }),
    debug: (msg, ctx) => entries.push({ level: 'debug', msg, ctx }),
    detail: (msg, ctx) => entries.push({ level: 'detail', msg, ctx }),
    child: () => make(),
    isEnabled: () => true,
  });
  return make();
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string } = {},
): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: opts.path ?? '/',
        method: opts.method ?? 'POST',
        headers: opts.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** POST with JSON content type. */
export function postJson(url: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(url, { body, headers: { 'content-type': 'application/json', ...headers } });
}

/** eth_chainId, eth_blockNumber, test_* helpers and an eth newHeads-like subscription driven by the test. */
export function testRegistry(): {
  registry: RpcRegistry;
  subs: Subscription[];
  release: () => void;
} {
  const registry = new RpcRegistry();
  const subs: Subscription[] = [];
  let release = (): void => {};
  const gate = (): Promise<void> =>
    new Promise((resolve) => {
      release = resolve;
    });
  registry.registerNamespace('eth', {
    chainId: () => '0x384',
    blockNumber: () => '0x10',
  });
  registry.registerNamespace('net', { version: () => '900' });
  registry.registerNamespace('web3', { clientVersion: () => 'tern/test' });
  registry.registerNamespace('test', {
    echo: (params) => params,
    fail: () => {
      throw new RpcError(3, 'execution reverted', '0x08c379a0');
    },
    crash: () => {
      throw new TypeError('secret internal detail');
    },
    big: (params) => 'x'.repeat(Number(params[0] ?? 10)),
    bigint: () => 1n,
    html: () => '<a&b>',
    wait: (_params, ctx) =>
      new Promise((resolve) => {
        const t = setTimeout(() => resolve('done'), 60_000);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(t);
          resolve('aborted');
        });
      }),
    gated: async () => {
      await gate();
      return 'released';
    },
    transport: (_params, ctx) => ctx.transport,
  });
  registry.registerNamespace('engine', { exchangeCapabilities: () => ['engine_x'] }, { authenticated: true });
  registry.registerSubscription('eth', 'newHeads', (_params, ctx) => {
    const sub = ctx.createSubscription();
    sub.notify({ number: '0x0', early: true });
    subs.push(sub);
    return sub;
  });
  return { registry, subs, release: () => release() };
}
