// A fault-injecting HTTP proxy for the layer-1 RPC and beacon endpoints, for the reliability suite and the
// catch-up benchmark: each request is forwarded to the upstream after a random latency, or answered with a fault —
// an HTTP 429 or 5xx, a connection reset, or the upstream's answer cut short. Faults can be changed while it runs
// (a test turns them off to watch recovery), and every outcome is counted.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Faults {
  /** Added latency per request, uniform in [min, max] ms. */
  latencyMs?: readonly [number, number];
  /** Share of requests answered 429 or 500/502/503 instead of forwarded (0..1). */
  errorRate?: number;
  /** Share of requests whose connection is reset without an answer. */
  resetRate?: number;
  /** Share of requests forwarded but answered with only half the upstream's body. */
  truncateRate?: number;
}

export interface FaultCounts {
  forwarded: number;
  errors: number;
  resets: number;
  truncated: number;
}

export interface FaultProxy {
  readonly url: string;
  readonly counts: FaultCounts;
  setFaults(f: Faults): void;
  close(): Promise<void>;
}

const ERROR_STATUSES = [429, 500, 502, 503] as const;

/** Starts a proxy on `host` (port 0: a free one) in front of `upstream` (http://host:port). */
export async function startFaultProxy(
  upstream: string,
  faults: Faults = {},
  opts: { host?: string; random?: () => number } = {},
): Promise<FaultProxy> {
  const target = new URL(upstream);
  const random = opts.random ?? Math.random;
  let current: Faults = { ...faults };
  const counts: FaultCounts = { forwarded: 0, errors: 0, resets: 0, truncated: 0 };

  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, truncate: boolean) => {
    const up = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host, 'content-length': String(body.length) },
      },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          let out = Buffer.concat(chunks);
          if (truncate) out = out.subarray(0, Math.floor(out.length / 2));
          const headers = { ...upRes.headers, 'content-length': String(out.length) };
          delete headers['transfer-encoding'];
          res.writeHead(upRes.statusCode ?? 502, headers).end(out);
        });
        upRes.on('error', () => res.destroy());
      },
    );
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('upstream unreachable');
      else res.destroy();
    });
    up.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const f = current;
      const [min, max] = f.latencyMs ?? [0, 0];
      const delay = min + random() * Math.max(0, max - min);
      setTimeout(() => {
        const r = random();
        const err = f.errorRate ?? 0;
        const reset = f.resetRate ?? 0;
        const trunc = f.truncateRate ?? 0;
        if (r < err) {
          counts.errors++;
          const status = ERROR_STATUSES[Math.floor(random() * ERROR_STATUSES.length)] as number;
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 429 ? 'Too Many Requests' : 'fault');
        } else if (r < err + reset) {
          counts.resets++;
          req.socket.destroy();
        } else if (r < err + reset + trunc) {
          counts.truncated++;
          forward(req, Buffer.concat(chunks), res, true);
        } else {
          counts.forwarded++;
          forward(req, Buffer.concat(chunks), res, false);
        }
      }, delay);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    counts,
    setFaults: (f) => {
      current = { ...f };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
