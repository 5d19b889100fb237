// Pushes the metrics to InfluxDB over HTTP in line protocol, as geth's metrics/influxdb reporters do: v1
// (`/write?db=…`, user name and password) or v2 (`/api/v2/write?org=…&bucket=…`, token). Measurements take geth's
// shape — `<namespace><name>.gauge value=…`, `.count value=…`, `.timer count=…,mean=…,p50=…` — so geth's
// InfluxDB dashboards work. A failed push is logged and retried at the next interval.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { MetricSnapshot, MetricsRegistry } from '../../common/metrics/registry.js';

export interface InfluxOptions {
  endpoint: string;
  version: 1 | 2;
  /** v1 */
  database?: string;
  username?: string;
  password?: string;
  /** v2 */
  token?: string;
  organization?: string;
  bucket?: string;
  /** Attached to every point (`--metrics.tsdb.tags host=localhost`). */
  tags?: Record<string, string>;
  /** Prepended to every measurement; geth's, so its dashboards' queries match. */
  namespace?: string;
  intervalMs?: number;
}

export const influxDefaults: { namespace: string; intervalMs: number } = { namespace: 'geth.', intervalMs: 10_000 };

const escapeMeasurement = (s: string): string => s.replace(/[, ]/g, (c) => `\\${c}`);
const escapeTag = (s: string): string => s.replace(/[,= ]/g, (c) => `\\${c}`);
const num = (v: number): string => (Number.isFinite(v) ? String(v) : '0');

/** The line-protocol lines of one snapshot, timestamp in ns. */
export function lineProtocol(
  snapshot: readonly MetricSnapshot[],
  opts: { namespace?: string; tags?: Record<string, string>; timeNs: bigint },
): string[] {
  const ns = opts.namespace ?? influxDefaults.namespace;
  const lines: string[] = [];
  for (const m of snapshot) {
    for (const s of m.series) {
      const tags = { ...(opts.tags ?? {}), ...s.labels };
      const tagText = Object.keys(tags)
        .sort()
        .map((k) => `,${escapeTag(k)}=${escapeTag(tags[k] as string)}`)
        .join('');
      let suffix: string;
      let fields: string;
      if (m.type === 'gauge') {
        suffix = 'gauge';
        fields = `value=${num(s.value)}`;
      } else if (m.type === 'counter') {
        suffix = 'count';
        fields = `value=${Math.round(s.value)}i`;
      } else {
        suffix = m.type === 'summary' ? 'timer' : 'histogram';
        const count = s.count ?? 0;
        const parts = [`count=${Math.round(count)}i`, `mean=${num(count > 0 ? (s.sum ?? 0) / count : 0)}`];
        for (const [q, v] of Object.entries(s.quantiles ?? {}))
          parts.push(`p${q.replace(/^0\./, '').padEnd(2, '0')}=${num(v)}`);
        fields = parts.join(',');
      }
      lines.push(`${escapeMeasurement(`${ns}${m.name}.${suffix}`)}${tagText} ${fields} ${opts.timeNs}`);
    }
  }
  return lines;
}

export class InfluxReporter {
  readonly #opts: InfluxOptions & typeof influxDefaults;
  readonly #registry: MetricsRegistry;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;

  constructor(opts: InfluxOptions, deps: { registry: MetricsRegistry; logger: Logger; signal?: AbortSignal }) {
    this.#opts = { ...influxDefaults, ...opts };
    this.#registry = deps.registry;
    this.#logger = deps.logger;
    if (opts.version === 2 && !opts.token)
      throw new TernError('USAGE', 'InfluxDB v2 needs a token (--metrics.tsdb.token)');
    deps.signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  /** The write URL and headers for this version. */
  request(): { url: string; headers: Record<string, string> } {
    const base = this.#opts.endpoint.replace(/\/+$/, '');
    const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
    if (this.#opts.version === 1) {
      const url = new URL(`${base}/write`);
      url.searchParams.set('db', this.#opts.database ?? 'tern-exec');
      url.searchParams.set('precision', 'ns');
      if (this.#opts.username) {
        headers.authorization = `Basic ${Buffer.from(`${this.#opts.username}:${this.#opts.password ?? ''}`).toString('base64')}`;
      }
      return { url: url.toString(), headers };
    }
    const url = new URL(`${base}/api/v2/write`);
    url.searchParams.set('org', this.#opts.organization ?? 'tern-exec');
    url.searchParams.set('bucket', this.#opts.bucket ?? 'tern-exec');
    url.searchParams.set('precision', 'ns');
    headers.authorization = `Token ${this.#opts.token}`;
    return { url: url.toString(), headers };
  }

  /** Sends one snapshot now; resolves false (and logs once per outage) when the server does not take it. */
  async push(): Promise<boolean> {
    const lines = lineProtocol(await this.#registry.snapshot(), {
      namespace: this.#opts.namespace,
      ...(this.#opts.tags ? { tags: this.#opts.tags } : {}),
      timeNs: BigInt(Date.now()) * 1_000_000n,
    });
    const { url, headers } = this.request();
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: `${lines.join('\n')}\n`,
        signal: AbortSignal.timeout(5000),
      });
      if (res.status >= 300) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
      if (this.#failing) this.#logger.info('InfluxDB push works again', { endpoint: this.#opts.endpoint });
      this.#failing = false;
      return true;
    } catch (err) {
      if (!this.#failing) {
        this.#logger.warn('InfluxDB push failed; retrying every interval', {
          endpoint: this.#opts.endpoint,
          err: err instanceof Error ? err.message : String(err),
        });
      }
      this.#failing = true;
      return false;
    }
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#logger.info('Starting InfluxDB metrics export', {
      endpoint: this.#opts.endpoint,
      version: this.#opts.version,
      interval: `${this.#opts.intervalMs / 1000}s`,
    });
    this.#timer = setInterval(() => void this.push(), this.#opts.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** `host=localhost,region=eu` (already split into items by the flag parser) → a tag record. */
export function parseTags(items: readonly string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const item of items) {
    const i = item.indexOf('=');
    if (i > 0) tags[item.slice(0, i).trim()] = item.slice(i + 1).trim();
  }
  return tags;
}
