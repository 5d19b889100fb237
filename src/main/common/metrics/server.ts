// The metrics HTTP server. tern-node serves Prometheus text at /metrics (op-node's path); tern-exec serves geth's
// /debug/metrics (JSON) and /debug/metrics/prometheus.
import type { ServerResponse } from 'node:http';
import type { Logger } from '../logger/index.js';
import { type ListenerAddress, ObservabilityListener, sendText } from './listener.js';
import type { MetricsRegistry } from './registry.js';

export interface MetricsServerOptions {
  host: string;
  port: number;
  /** `op-node`: /metrics; `geth`: /debug/metrics and /debug/metrics/prometheus. */
  style: 'op-node' | 'geth';
}

export class MetricsServer {
  readonly #listener: ObservabilityListener;
  readonly #logger: Logger;
  readonly #style: MetricsServerOptions['style'];

  constructor(opts: MetricsServerOptions, deps: { logger: Logger; registry: MetricsRegistry }) {
    this.#logger = deps.logger;
    this.#style = opts.style;
    const { registry } = deps;
    const prometheus = async (res: ServerResponse): Promise<void> => {
      const text = await registry.prometheusText();
      res.writeHead(200, { 'content-type': registry.contentType });
      res.end(text);
    };
    this.#listener = new ObservabilityListener(
      { host: opts.host, port: opts.port, name: 'metrics' },
      async (_req, res, url) => {
        const path = url.pathname.replace(/\/+$/, '') || '/';
        if (opts.style === 'op-node') {
          if (path === '/metrics' || path === '/') return prometheus(res);
        } else if (path === '/debug/metrics/prometheus') {
          return prometheus(res);
        } else if (path === '/debug/metrics') {
          const json = await registry.gethJson();
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          res.end(`${JSON.stringify(json, null, 1)}\n`);
          return;
        }
        sendText(res, 404, '404 page not found\n');
      },
    );
  }

  async start(): Promise<ListenerAddress> {
    const address = await this.#listener.start();
    const path = this.#style === 'op-node' ? '/metrics' : '/debug/metrics';
    this.#logger.info('Starting metrics server', { addr: `${address.url}${path}` });
    return address;
  }

  stop(): Promise<void> {
    return this.#listener.stop();
  }
}
