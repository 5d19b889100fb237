// GraphQL on the HTTP-RPC listener, as geth mounts it: /graphql and everything under /graphql/ run queries behind
// their own virtual-host and CORS checks (--graphql.vhosts, --graphql.corsdomain: the same guards as JSON-RPC's),
// /graphql/ui serves the query page. A query comes as a POST body `{query, operationName, variables}` (geth's
// only form) or as GET parameters of the same names (queries only: a mutation must be POSTed). Answers are JSON,
// 400 when they carry errors; bodies beyond 5 MiB get 413; a request running past the server's request timeout is
// answered `request timed out` and its resolvers are cancelled.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import type { Logger } from '../../common/logger/index.js';
import {
  corsActualHeaders,
  corsPolicy,
  corsPreflightHeaders,
  isPreflight,
  vhostAllowed,
  vhostSet,
} from '../../common/rpc/guards.js';
import type { HttpRoute } from '../../common/rpc/http.js';
import { serveGraphiql } from './graphiql.js';
import type { GraphqlDeps } from './resolvers.js';
import { type GraphqlAnswer, type GraphqlParams, operationKind, prepare, run } from './service.js';

/** geth's maxRequestBodySize for GraphQL. */
export const GRAPHQL_BODY_LIMIT = 5 * 1024 * 1024;

export interface GraphqlHttpOptions {
  /** --graphql.corsdomain; empty disables CORS handling. */
  corsDomains?: readonly string[] | undefined;
  /** --graphql.vhosts (default `localhost`; `*` accepts all). */
  vhosts?: readonly string[] | undefined;
  /** Past this, the answer is `request timed out` (geth: the server's write timeout less 100 ms). */
  requestTimeoutMs?: number | undefined;
  /** Largest request body. */
  bodyLimit?: number | undefined;
}

export const graphqlHttpDefaults = {
  corsDomains: [] as readonly string[],
  vhosts: ['localhost'] as readonly string[],
  requestTimeoutMs: 29_900,
  bodyLimit: GRAPHQL_BODY_LIMIT,
} as const;

const TEXT_HEADERS = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

function textError(res: ServerResponse, status: number, message: string): void {
  const body = `${message}\n`;
  res.writeHead(status, { ...TEXT_HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The body, or a 413 once it passes `limit` bytes (http.MaxBytesReader). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new RequestError(413, 'http: request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The POST body: one JSON object and nothing after it. */
function bodyParams(body: Buffer): GraphqlParams {
  const text = body.toString('utf8');
  if (text.trim() === '') throw new RequestError(400, 'EOF');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // JSON.parse cannot tell trailing content from a broken value: both are a bad request.
    throw new RequestError(400, (err as Error).message);
  }
  return checkParams(value);
}

function checkParams(value: unknown): GraphqlParams {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RequestError(400, 'json: the request must be an object {query, operationName, variables}');
  }
  const o = value as Record<string, unknown>;
  const query = o.query ?? '';
  if (typeof query !== 'string') throw new RequestError(400, 'json: query must be a string');
  const operationName = o.operationName ?? null;
  if (operationName !== null && typeof operationName !== 'string') {
    throw new RequestError(400, 'json: operationName must be a string');
  }
  const variables = o.variables ?? null;
  if (variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    throw new RequestError(400, 'json: variables must be an object');
  }
  return { query, operationName, variables: variables as Record<string, unknown> | null };
}

/** GET ?query=…&operationName=…&variables=<json>. */
function queryParams(search: string): GraphqlParams {
  const q = new URLSearchParams(search);
  let variables: unknown = null;
  const v = q.get('variables');
  if (v !== null && v !== '') {
    try {
      variables = JSON.parse(v);
    } catch (err) {
      throw new RequestError(400, `variables: ${(err as Error).message}`);
    }
  }
  return checkParams({ query: q.get('query') ?? '', operationName: q.get('operationName'), variables });
}

const TIMED_OUT = JSON.stringify({ errors: [{ message: 'request timed out' }] });

/** The /graphql handler. */
export function graphqlHandler(deps: GraphqlDeps, opts: GraphqlHttpOptions, logger: Logger): HttpRoute {
  const d = graphqlHttpDefaults;
  const vhosts = vhostSet(opts.vhosts ?? d.vhosts);
  const cors = corsPolicy(opts.corsDomains ?? d.corsDomains);
  const timeoutMs = opts.requestTimeoutMs ?? d.requestTimeoutMs;
  const bodyLimit = opts.bodyLimit ?? d.bodyLimit;

  const write = (res: ServerResponse, req: IncomingMessage, answer: GraphqlAnswer): void => {
    if (res.headersSent || res.destroyed) return;
    const headers = { 'content-type': 'application/json' };
    if (!(header(req, 'accept-encoding') ?? '').includes('gzip')) {
      res.writeHead(answer.status, { ...headers, 'content-length': Buffer.byteLength(answer.body) });
      res.end(answer.body);
      return;
    }
    gzip(answer.body, (err, out) => {
      if (res.headersSent || res.destroyed) return;
      if (err) {
        res.writeHead(500, { 'content-length': 0 });
        res.end();
        return;
      }
      res.writeHead(answer.status, { ...headers, 'content-encoding': 'gzip', 'content-length': out.length });
      res.end(out);
    });
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const search = q === -1 ? '' : url.slice(q + 1);
    const method = req.method ?? 'GET';
    let params: GraphqlParams;
    try {
      params =
        method === 'GET' && new URLSearchParams(search).has('query')
          ? queryParams(search)
          : bodyParams(await readBody(req, bodyLimit));
    } catch (err) {
      if (err instanceof RequestError) {
        if (err.status === 413) res.shouldKeepAlive = false;
        textError(res, err.status, err.message);
        return;
      }
      res.destroy();
      return;
    }
    const prepared = prepare(params);
    if ('answer' in prepared) {
      write(res, req, prepared.answer);
      return;
    }
    if (method === 'GET' && operationKind(prepared.document, params.operationName) === 'mutation') {
      const body = JSON.stringify({ errors: [{ message: 'mutations must be sent with POST' }] });
      res.writeHead(405, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        allow: 'POST',
      });
      res.end(body);
      return;
    }
    const abort = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) abort.abort();
    };
    res.on('close', onClose);
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            abort.abort();
            if (res.headersSent || res.destroyed) return;
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(TIMED_OUT) });
            res.end(TIMED_OUT);
          }, timeoutMs)
        : undefined;
    try {
      write(res, req, await run(deps, prepared.document, params, abort.signal));
    } finally {
      if (timer) clearTimeout(timer);
      res.off('close', onClose);
    }
  };

  return (req, res) => {
    if (!vhostAllowed(vhosts, header(req, 'host'))) {
      textError(res, 403, 'invalid host specified');
      return;
    }
    const method = req.method ?? 'GET';
    if (cors) {
      if (isPreflight(method, req.headers)) {
        corsPreflightHeaders(cors, req.headers, (k, v) => res.setHeader(k, v));
        res.writeHead(200, { 'content-length': 0 });
        res.end();
        return;
      }
      corsActualHeaders(cors, method, req.headers, (k, v) => res.setHeader(k, v));
    }
    // Returned so that the listener's stop() waits for it (the database must outlive the resolvers).
    return serve(req, res).catch((err: unknown) => {
      logger.error('GraphQL request failed', { err: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) textError(res, 500, 'internal error');
      else res.end();
    });
  };
}

/** The paths geth registers: the query endpoint (and below it) and the query page (and below it). */
export function graphqlRoutes(deps: GraphqlDeps, opts: GraphqlHttpOptions, logger: Logger): Record<string, HttpRoute> {
  const handler = graphqlHandler(deps, opts, logger.child('graphql'));
  return { '/graphql': handler, '/graphql/': handler, '/graphql/ui': serveGraphiql, '/graphql/ui/': serveGraphiql };
}
