// How the programs lay out their RPC listeners, following geth's node.startRPC and op-node's RPC server:
// - user HTTP and WS (tern-exec --http*, --ws*): WS shares the HTTP listener when their ports are equal (geth's
//   wsServerForPort; the shared listener then binds the WS address, as in geth);
// - the authenticated endpoint (tern-exec --authrpc*): HTTP and WS on one port, JWT required, engine namespaces
//   offered, geth's engine limits (2000 calls, 250 MB, 128 MiB bodies), no gzip;
// - tern-node's RPC server (--rpc.addr/--rpc.port): op-node's defaults (every host and origin, every path).
import type { Logger } from '../logger/index.js';
import { HttpRpcServer, type HttpRpcServerOptions, httpRpcServerDefaults, type RpcServerDeps } from './http.js';

export interface UserHttpOptions {
  host?: string | undefined;
  port?: number | undefined;
  apis?: readonly string[] | undefined;
  corsDomains?: readonly string[] | undefined;
  vhosts?: readonly string[] | undefined;
  prefix?: string | undefined;
  /** Plain HTTP handlers mounted beside JSON-RPC (tern-exec's /graphql). */
  routes?: HttpRpcServerOptions['routes'];
}

export interface UserWsOptions {
  host?: string | undefined;
  port?: number | undefined;
  apis?: readonly string[] | undefined;
  origins?: readonly string[] | undefined;
  prefix?: string | undefined;
}

export interface UserRpcOptions {
  /** --http: undefined when HTTP-RPC is off. */
  http?: UserHttpOptions | undefined;
  /** --ws: undefined when WS-RPC is off. */
  ws?: UserWsOptions | undefined;
  batchRequestLimit?: number | undefined;
  batchResponseMaxSize?: number | undefined;
  bodyLimit?: number | undefined;
}

/** The seed's defaults for tern-exec's user endpoints. */
export const userRpcDefaults = {
  httpHost: 'localhost',
  httpPort: 8545,
  wsHost: 'localhost',
  wsPort: 8546,
  apis: httpRpcServerDefaults.apis,
  vhosts: httpRpcServerDefaults.vhosts,
  batchRequestLimit: httpRpcServerDefaults.batchRequestLimit,
  batchResponseMaxSize: httpRpcServerDefaults.batchResponseMaxSize,
} as const;

/** Listener options for the user endpoints: one listener, or two when HTTP and WS use different ports. */
export function planUserListeners(opts: UserRpcOptions, logger?: Logger): HttpRpcServerOptions[] {
  const d = userRpcDefaults;
  const limits = {
    batchRequestLimit: opts.batchRequestLimit ?? d.batchRequestLimit,
    batchResponseMaxSize: opts.batchResponseMaxSize ?? d.batchResponseMaxSize,
    bodyLimit: opts.bodyLimit,
  };
  const out: HttpRpcServerOptions[] = [];
  const http = opts.http;
  const ws = opts.ws;
  const httpListener: HttpRpcServerOptions | undefined = http && {
    host: http.host ?? d.httpHost,
    port: http.port ?? d.httpPort,
    http: { apis: http.apis, corsDomains: http.corsDomains, vhosts: http.vhosts, prefix: http.prefix },
    ...(http.routes ? { routes: http.routes } : {}),
    ...limits,
  };
  if (httpListener) out.push(httpListener);
  if (ws) {
    const wsPart = { apis: ws.apis, origins: ws.origins, prefix: ws.prefix };
    const port = ws.port ?? d.wsPort;
    const host = ws.host ?? d.wsHost;
    if (httpListener && httpListener.port === port) {
      if (httpListener.host !== host) {
        logger?.warn('HTTP and WebSocket share a port; the listener binds the WebSocket address, as geth does', {
          http: httpListener.host,
          ws: host,
        });
      }
      httpListener.host = host;
      httpListener.ws = wsPart;
    } else {
      out.push({ host, port, ws: wsPart, ...limits });
    }
  }
  return out;
}

/** Creates the user HTTP/WS servers (not started). */
export function createUserRpcServers(opts: UserRpcOptions, deps: RpcServerDeps): HttpRpcServer[] {
  return planUserListeners(opts, deps.logger).map((o) => new HttpRpcServer(o, deps));
}

export interface AuthRpcOptions {
  host?: string | undefined;
  port?: number | undefined;
  /** --authrpc.vhosts */
  vhosts?: readonly string[] | undefined;
  /** The 32-byte secret (--authrpc.jwtsecret, read with secretFile.ts). */
  jwtSecret: Uint8Array;
  /** Namespaces offered; undefined offers every registered one (geth limits its endpoint to GETH_AUTH_APIS). */
  apis?: readonly string[] | undefined;
}

/** Namespaces geth offers on its authenticated endpoint (DefaultAuthModules). */
export const GETH_AUTH_APIS: readonly string[] = ['eth', 'engine'];

/** geth's authenticated endpoint settings (node/defaults.go). */
export const authRpcDefaults = {
  host: 'localhost',
  port: 8551,
  vhosts: ['localhost'] as readonly string[],
  corsDomains: ['localhost'] as readonly string[],
  origins: ['localhost'] as readonly string[],
  batchRequestLimit: 2000,
  batchResponseMaxSize: 250_000_000,
  bodyLimit: 128 * 1024 * 1024,
} as const;

export function authListener(opts: AuthRpcOptions): HttpRpcServerOptions {
  const d = authRpcDefaults;
  return {
    name: 'auth',
    host: opts.host ?? d.host,
    port: opts.port ?? d.port,
    jwtSecret: opts.jwtSecret,
    authenticated: true,
    http: {
      apis: opts.apis ?? [],
      corsDomains: d.corsDomains,
      vhosts: opts.vhosts ?? d.vhosts,
      prefix: '',
      gzip: false,
    },
    ws: { apis: opts.apis ?? [], origins: d.origins, prefix: '' },
    batchRequestLimit: d.batchRequestLimit,
    batchResponseMaxSize: d.batchResponseMaxSize,
    bodyLimit: d.bodyLimit,
  };
}

export function createAuthRpcServer(opts: AuthRpcOptions, deps: RpcServerDeps): HttpRpcServer {
  return new HttpRpcServer(authListener(opts), deps);
}

export interface NodeRpcOptions {
  /** --rpc.addr */
  host?: string | undefined;
  /** --rpc.port */
  port?: number | undefined;
  /** Namespaces offered; undefined offers every registered one (admin is registered only with --rpc.enable-admin). */
  apis?: readonly string[] | undefined;
  /** Extra plain HTTP paths (op-node serves /healthz). */
  routes?: HttpRpcServerOptions['routes'];
}

/** op-node's RPC server: every vhost and CORS origin, JSON-RPC on every path, no batch limits. */
export const nodeRpcDefaults = {
  host: '0.0.0.0',
  port: 9545,
  vhosts: ['*'] as readonly string[],
  corsDomains: ['*'] as readonly string[],
  prefix: '/',
  batchRequestLimit: 0,
  batchResponseMaxSize: 0,
} as const;

export function nodeListener(opts: NodeRpcOptions): HttpRpcServerOptions {
  const d = nodeRpcDefaults;
  return {
    name: 'node',
    host: opts.host ?? d.host,
    port: opts.port ?? d.port,
    http: { apis: opts.apis ?? [], corsDomains: d.corsDomains, vhosts: d.vhosts, prefix: d.prefix },
    batchRequestLimit: d.batchRequestLimit,
    batchResponseMaxSize: d.batchResponseMaxSize,
    routes: opts.routes,
  };
}

export function createNodeRpcServer(opts: NodeRpcOptions, deps: RpcServerDeps): HttpRpcServer {
  return new HttpRpcServer(nodeListener(opts), deps);
}
