// What a module sees of metrics: a factory that creates (or returns the already registered) metric by name.
// Names are written the way the reference client writes them — op-node's `refs_number`, geth's `chain/head/block`
// — and the registry turns them into Prometheus names (`/`, `.`, `-` become `_`; the namespace is prepended).
import type { Counter, Gauge, Histogram, Summary } from 'prom-client';

export type { Counter, Gauge, Histogram, Summary };

export interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface GaugeOptions<L extends string> extends MetricOptions<L> {
  /** Called at every scrape before the value is read: for values cheaper to read than to keep up to date. */
  collect?: (gauge: Gauge<L>) => void | Promise<void>;
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  buckets?: number[];
}

export interface SummaryOptions<L extends string> extends MetricOptions<L> {
  percentiles?: number[];
  /** Window the percentiles cover (geth's timers decay); default 10 minutes. */
  maxAgeSeconds?: number;
}

export interface MetricsFactory {
  /** Prepended to every name with `_` (`op_node_default`), or empty. */
  readonly namespace: string;
  counter<L extends string = never>(opts: MetricOptions<L>): Counter<L>;
  gauge<L extends string = never>(opts: GaugeOptions<L>): Gauge<L>;
  histogram<L extends string = never>(opts: HistogramOptions<L>): Histogram<L>;
  summary<L extends string = never>(opts: SummaryOptions<L>): Summary<L>;
}
