// Worker-pool metrics: queue length and threads (read at scrape time from every live pool), task wait and run
// time, task results. Pools are created deep inside other modules, so the program installs one recorder per
// process (installPoolMetrics) and every PiscinaPool reports to it; before that, reporting costs nothing.
import type { MetricsFactory } from './interface.js';

/** What a pool exposes for scraping. */
export interface PoolGauges {
  readonly name: string;
  readonly queueSize: number;
  readonly threads: number;
  /** Tasks handed to threads and not yet settled. */
  readonly active: number;
}

export interface PoolMetricsRecorder {
  /** A pool to read at every scrape (held weakly: a dropped pool stops being reported). */
  track(pool: PoolGauges): void;
  /** Time from `run` to the task being handed to a thread (admission back-pressure), seconds. */
  observeWait(pool: string, task: string, seconds: number): void;
  /** Time from hand-off to the result (thread queue, transfer, the task itself), seconds. */
  observeRun(pool: string, task: string, seconds: number, ok: boolean): void;
}

const NOOP: PoolMetricsRecorder = { track() {}, observeWait() {}, observeRun() {} };
let current: PoolMetricsRecorder = NOOP;

export function poolMetrics(): PoolMetricsRecorder {
  return current;
}

export interface PoolMetricsOptions {
  /**
   * The per-task wait and run histograms (pool_task_wait_seconds, pool_task_run_seconds; default on). tern-exec
   * turns them on with --metrics.expensive only: two observations per task on the coordinator thread, and
   * pool × task × bucket series.
   */
  taskTimings?: boolean;
}

const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Registers the pool metrics on `factory` and makes every pool report to them. Names (after the namespace):
 * pool_queue_length, pool_threads, pool_active_tasks {pool}; pool_task_wait_seconds, pool_task_run_seconds
 * {pool, task}; pool_tasks_total {pool, task, result}.
 */
export function installPoolMetrics(factory: MetricsFactory, opts: PoolMetricsOptions = {}): PoolMetricsRecorder {
  const pools = new Set<WeakRef<PoolGauges>>();
  const read =
    (pick: (p: PoolGauges) => number) => (g: { reset(): void; set(l: { pool: string }, v: number): void }) => {
      g.reset();
      for (const ref of pools) {
        const p = ref.deref();
        if (p === undefined) pools.delete(ref);
        else g.set({ pool: p.name }, pick(p));
      }
    };
  factory.gauge({
    name: 'pool_queue_length',
    help: 'Tasks submitted to a worker pool and not yet started',
    labelNames: ['pool'],
    collect: read((p) => p.queueSize),
  });
  factory.gauge({
    name: 'pool_threads',
    help: 'Worker threads of a pool (its maximum)',
    labelNames: ['pool'],
    collect: read((p) => p.threads),
  });
  factory.gauge({
    name: 'pool_active_tasks',
    help: 'Tasks handed to a pool thread and not yet finished',
    labelNames: ['pool'],
    collect: read((p) => p.active),
  });
  const total = factory.counter({
    name: 'pool_tasks_total',
    help: 'Tasks finished by a worker pool, by result',
    labelNames: ['pool', 'task', 'result'],
  });
  if (opts.taskTimings === false) {
    current = {
      track: (p) => pools.add(new WeakRef(p)),
      observeWait() {},
      observeRun: (pool, task, _s, ok) => total.inc({ pool, task, result: ok ? 'ok' : 'error' }),
    };
    return current;
  }
  const wait = factory.histogram({
    name: 'pool_task_wait_seconds',
    help: 'Time a task waited for admission to its worker pool',
    labelNames: ['pool', 'task'],
    buckets: BUCKETS,
  });
  const run = factory.histogram({
    name: 'pool_task_run_seconds',
    help: 'Time from handing a task to the pool to its result (thread queue, transfer and run)',
    labelNames: ['pool', 'task'],
    buckets: BUCKETS,
  });
  current = {
    track: (p) => pools.add(new WeakRef(p)),
    observeWait: (pool, task, s) => wait.observe({ pool, task }, s),
    observeRun: (pool, task, s, ok) => {
      run.observe({ pool, task }, s);
      total.inc({ pool, task, result: ok ? 'ok' : 'error' });
    },
  };
  return current;
}

/** Back to not recording (tests). */
export function uninstallPoolMetrics(): void {
  current = NOOP;
}
