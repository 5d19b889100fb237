// One metrics registry per program, on prom-client. Modules get a MetricsFactory (constructors take it as
// `deps.metrics`); the servers read the registry as Prometheus text and, for tern-exec, as geth's /debug/metrics
// JSON (expvar style: the geth name as key, timers expanded to .count/.mean/.50-percentile …).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry, Summary } from 'prom-client';
import { TernError } from '../errors.js';
import type { GaugeOptions, HistogramOptions, MetricOptions, MetricsFactory, SummaryOptions } from './interface.js';

export interface MetricsRegistryOptions {
  /** op-node: `op_node_default`; tern-exec (geth): empty. */
  namespace?: string;
  /** Node's process and runtime metrics (process_cpu_seconds_total, nodejs_heap_size_used_bytes …), as op-node
   *  and geth export their process and Go runtime metrics. Default true. */
  defaultMetrics?: boolean;
}

export const metricsRegistryDefaults = { namespace: '', defaultMetrics: true } as const;

/** geth's Prometheus name rule: `/`, `.` and `-` become `_`. */
export function prometheusName(name: string): string {
  return name.replace(/[/.-]/g, '_');
}

type AnyMetric = Counter<string> | Gauge<string> | Histogram<string> | Summary<string>;

export class MetricsRegistry {
  readonly registry = new Registry();
  readonly #namespace: string;
  /** Prometheus name → the name the module gave (geth's, with slashes), for the JSON view. */
  readonly #sourceNames = new Map<string, string>();
  readonly #metrics = new Map<string, AnyMetric>();

  constructor(opts: MetricsRegistryOptions = {}) {
    this.#namespace = opts.namespace ?? metricsRegistryDefaults.namespace;
    if (opts.defaultMetrics ?? metricsRegistryDefaults.defaultMetrics) {
      collectDefaultMetrics({ register: this.registry });
    }
  }

  get namespace(): string {
    return this.#namespace;
  }

  /** The factory modules register through. Metrics are shared by name: asking twice returns the same one. */
  factory(): MetricsFactory {
    return {
      namespace: this.#namespace,
      counter: (o) => this.#get('counter', o, (name) => new Counter({ ...base(o, name), registers: [this.registry] })),
      gauge: <L extends string>(o: GaugeOptions<L>) =>
        this.#get('gauge', o, (name) => {
          const collect = o.collect;
          return new Gauge<L>({
            ...base(o, name),
            registers: [this.registry],
            ...(collect
              ? {
                  collect(this: Gauge<L>) {
                    return collect(this);
                  },
                }
              : {}),
          });
        }),
      histogram: <L extends string>(o: HistogramOptions<L>) =>
        this.#get(
          'histogram',
          o,
          (name) =>
            new Histogram<L>({
              ...base(o, name),
              registers: [this.registry],
              ...(o.buckets ? { buckets: o.buckets } : {}),
            }),
        ),
      summary: <L extends string>(o: SummaryOptions<L>) =>
        this.#get(
          'summary',
          o,
          (name) =>
            new Summary<L>({
              ...base(o, name),
              registers: [this.registry],
              percentiles: o.percentiles ?? [0.5, 0.75, 0.95, 0.99, 0.999],
              maxAgeSeconds: o.maxAgeSeconds ?? 600,
              ageBuckets: 5,
            }),
        ),
    };
  }

  #get<M extends AnyMetric, L extends string>(
    type: 'counter' | 'gauge' | 'histogram' | 'summary',
    o: MetricOptions<L>,
    create: (name: string) => M,
  ): M {
    const name = this.#namespace ? `${this.#namespace}_${prometheusName(o.name)}` : prometheusName(o.name);
    const existing = this.#metrics.get(name);
    if (existing !== undefined) {
      const existingType = (existing as unknown as { type?: string }).type;
      if (existingType !== undefined && existingType !== type) {
        throw new TernError(
          'METRIC_CONFLICT',
          `metric ${name} is already registered as a ${existingType}, not a ${type}`,
        );
      }
      return existing as M;
    }
    const metric = create(name);
    this.#metrics.set(name, metric);
    this.#sourceNames.set(name, o.name);
    return metric;
  }

  /** Prometheus text exposition format 0.0.4. */
  prometheusText(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * Every metric as plain data, under the name its module gave (geth's, with slashes): the input of the JSON
   * view and of the InfluxDB reporter.
   */
  async snapshot(): Promise<MetricSnapshot[]> {
    const out: MetricSnapshot[] = [];
    for (const m of await this.registry.getMetricsAsJSON()) {
      const type = String(m.type) as MetricSnapshot['type'];
      const snap: MetricSnapshot = { name: this.#sourceNames.get(m.name) ?? m.name, type, series: [] };
      const byLabels = new Map<string, SeriesSnapshot>();
      for (const v of m.values) {
        const labels: Record<string, string> = {};
        let quantile: number | undefined;
        let bucket = false;
        for (const [k, val] of Object.entries(v.labels ?? {})) {
          if (k === 'quantile' && type === 'summary') quantile = Number(val);
          else if (k === 'le' && type === 'histogram') bucket = true;
          else labels[k] = String(val);
        }
        const key = JSON.stringify(labels);
        let series = byLabels.get(key);
        if (series === undefined) {
          series = { labels, value: 0 };
          byLabels.set(key, series);
          snap.series.push(series);
        }
        const metricName = (v as { metricName?: string }).metricName ?? m.name;
        if (type !== 'summary' && type !== 'histogram') series.value = v.value;
        else if (quantile !== undefined) {
          series.quantiles ??= {};
          series.quantiles[String(quantile)] = v.value;
        } else if (bucket) continue;
        else if (metricName.endsWith('_count')) series.count = v.value;
        else if (metricName.endsWith('_sum')) series.sum = v.value;
      }
      out.push(snap);
    }
    return out;
  }

  /**
   * geth's /debug/metrics: `{"chain/head/block": 12, "rpc/duration/all.count": 3, "rpc/duration/all.50-percentile": …}`.
   * Labelled series get their label values appended to the key as path parts (`pool_queue_length/senders`).
   */
  async gethJson(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const m of await this.snapshot()) {
      for (const s of m.series) {
        const path = [m.name, ...Object.values(s.labels)].join('/');
        if (m.type === 'summary' || m.type === 'histogram') {
          const count = s.count ?? 0;
          out[`${path}.count`] = count;
          out[`${path}.mean`] = count > 0 ? (s.sum ?? 0) / count : 0;
          for (const [q, v] of Object.entries(s.quantiles ?? {})) out[`${path}.${percentileName(Number(q))}`] = v;
        } else {
          out[path] = s.value;
        }
      }
    }
    return out;
  }
}

export interface SeriesSnapshot {
  labels: Record<string, string>;
  /** Counters and gauges. */
  value: number;
  /** Summaries and histograms. */
  count?: number;
  sum?: number;
  /** Summaries: quantile ("0.5") → value. */
  quantiles?: Record<string, number>;
}

export interface MetricSnapshot {
  /** The name the module registered (geth style for tern-exec), not the Prometheus one. */
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
  series: SeriesSnapshot[];
}

function base<L extends string>(o: MetricOptions<L>, name: string) {
  return { name, help: o.help, labelNames: (o.labelNames ?? []) as L[] };
}

/** 0.5 → `50-percentile`, 0.999 → `999-percentile` (geth's keys). */
function percentileName(q: number): string {
  const digits = String(q).replace(/^0\./, '');
  return `${digits.length === 1 ? `${digits}0` : digits}-percentile`;
}
