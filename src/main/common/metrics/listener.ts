// A small HTTP listener for the observability endpoints (metrics, pprof): routes by path, binds like geth and
// op-node do (`localhost` → 127.0.0.1), reports its bound address, and closes idle keep-alive sockets on stop so
// shutdown stays fast while a scraper holds a connection open.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TernError } from '../errors.js';

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export interface ListenerAddress {
  host: string;
  port: number;
  /** `http://host:port` (IPv6 bracketed). */
  url: string;
}

export interface ObservabilityListenerOptions {
  host: string;
  port: number;
  /** What the listener is, for error messages: `metrics`, `pprof`. */
  name: string;
}

export class ObservabilityListener {
  readonly #server: Server;
  readonly #opts: ObservabilityListenerOptions;
  #address: ListenerAddress | undefined;

  constructor(opts: ObservabilityListenerOptions, handler: Handler) {
    this.#opts = opts;
    this.#server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      Promise.resolve()
        .then(() => handler(req, res, url))
        .catch((err: unknown) => {
          const code = err instanceof TernError ? err.code : 'INTERNAL';
          if (!res.headersSent) {
            res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
            res.end(`${code}: ${err instanceof Error ? err.message : String(err)}\n`);
          } else {
            res.destroy();
          }
        });
    });
  }

  get address(): ListenerAddress | undefined {
    return this.#address;
  }

  start(): Promise<ListenerAddress> {
    const host = this.#opts.host === 'localhost' ? '127.0.0.1' : this.#opts.host;
    return new Promise((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        reject(
          new TernError(
            'LISTEN_FAILED',
            `${this.#opts.name} server cannot listen on ${host}:${this.#opts.port}: ${err.code ?? err.message}`,
          ),
        );
      };
      this.#server.once('error', onError);
      this.#server.listen(this.#opts.port, host === '' ? undefined : host, () => {
        this.#server.off('error', onError);
        const a = this.#server.address() as AddressInfo;
        const h = a.address.includes(':') ? `[${a.address}]` : a.address;
        this.#address = { host: a.address, port: a.port, url: `http://${h}:${a.port}` };
        resolve(this.#address);
      });
    });
  }

  stop(): Promise<void> {
    if (!this.#server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeIdleConnections();
      // A long profile request would otherwise hold shutdown for its whole duration.
      setTimeout(() => this.#server.closeAllConnections(), 500).unref();
    });
  }
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(text);
}
