// tern-exec's metrics under geth's names, so geth dashboards work: chain heads (read from the chain store at each
// scrape), block import timers, transaction pool sizes, and the JSON-RPC request set the RPC servers report to.

import type { Gauge, MetricsFactory, Summary } from '../../common/metrics/interface.js';
import type { RpcMetrics } from '../../common/rpc/core.js';
import type { ImportTimings } from '../chain/importer.js';

/** The chain heads tern-exec can read cheaply. */
export interface ChainHeads {
  block: number;
  header?: number;
  receipt?: number;
  safe?: number;
  finalized?: number;
}

export class ChainMetrics {
  readonly #source: { heads: (() => ChainHeads) | undefined } = { heads: undefined };
  /** geth's chain/inserts, chain/execution, chain/validation, chain/write (nanoseconds, as geth's timers). */
  readonly inserts: Summary;
  readonly execution: Summary;
  readonly validation: Summary;
  readonly write: Summary;

  constructor(f: MetricsFactory) {
    const head = (name: string, help: string, pick: (h: ChainHeads) => number | undefined): Gauge =>
      f.gauge({
        name,
        help,
        collect: (g) => {
          const h = this.#source.heads?.();
          const v = h === undefined ? undefined : pick(h);
          if (v !== undefined) g.set(v);
        },
      });
    head('chain/head/block', 'Current head block number', (h) => h.block);
    head('chain/head/header', 'Current head header number', (h) => h.header ?? h.block);
    head('chain/head/receipt', 'Current head block with receipts', (h) => h.receipt ?? h.block);
    head('chain/head/safe', 'Current safe block number', (h) => h.safe);
    head('chain/head/finalized', 'Current finalized block number', (h) => h.finalized);
    const timer = (name: string, help: string) => f.summary({ name, help: `${help} (nanoseconds)` });
    this.inserts = timer('chain/inserts', 'Block insertion time');
    this.execution = timer('chain/execution', 'Block execution time');
    this.validation = timer('chain/validation', 'Block validation time');
    this.write = timer('chain/write', 'Block write time');
  }

  /**
   * One imported block's stage times (milliseconds, as the importer reports them): sender recovery and execution
   * count as execution, the state-root commitment and its check as validation, the batch as the write.
   */
  recordImport(t: ImportTimings): void {
    const ns = (ms: number) => Math.round(ms * 1e6);
    this.execution.observe(ns(t.senders + t.execution));
    this.validation.observe(ns(t.stateRoot));
    this.write.observe(ns(t.persistence));
    this.inserts.observe(ns(t.senders + t.execution + t.stateRoot + t.persistence));
  }

  /** Where the head gauges read from (the chain store); called once the chain is open. */
  setHeads(read: () => ChainHeads): void {
    this.#source.heads = read;
  }
}

/** What the pool gauges read (TernTxPool: status(), slots, localCount()). */
export interface TxPoolStats {
  pending: number;
  queued: number;
  local?: number;
  slots?: number;
}

/** geth's txpool/pending, txpool/queued, txpool/local, txpool/slots gauges, read from the pool at each scrape. */
export class TxPoolMetrics {
  #read: (() => TxPoolStats) | undefined;

  constructor(f: MetricsFactory) {
    const g = (name: string, help: string, pick: (s: TxPoolStats) => number | undefined) =>
      f.gauge({
        name,
        help,
        collect: (gauge) => {
          const s = this.#read?.();
          const v = s === undefined ? undefined : pick(s);
          gauge.set(v ?? 0);
        },
      });
    g('txpool/pending', 'Executable transactions in the pool', (s) => s.pending);
    g('txpool/queued', 'Non-executable transactions in the pool', (s) => s.queued);
    g('txpool/local', 'Local transactions in the pool', (s) => s.local);
    g('txpool/slots', 'Slots (32 KiB each) taken by the executable and queued transactions', (s) => s.slots);
  }

  setSource(read: () => TxPoolStats): void {
    this.#read = read;
  }
}

/**
 * geth's rpc/requests, rpc/success, rpc/failure counters and rpc/duration/all plus per-method
 * rpc/duration/<method>/success|failure timers (nanoseconds); pass to the RPC servers as `deps.metrics`.
 */
export function gethRpcMetrics(f: MetricsFactory, isKnown: (method: string) => boolean = () => true): RpcMetrics {
  const requests = f.counter({ name: 'rpc/requests', help: 'JSON-RPC requests served' });
  const success = f.counter({ name: 'rpc/success', help: 'JSON-RPC requests answered with a result' });
  const failure = f.counter({ name: 'rpc/failure', help: 'JSON-RPC requests answered with an error' });
  const all = f.summary({ name: 'rpc/duration/all', help: 'JSON-RPC request duration (nanoseconds)' });
  const perMethod = new Map<string, Summary>();
  return {
    observeRequest(method, ok, durationMs) {
      requests.inc();
      (ok ? success : failure).inc();
      const ns = durationMs * 1e6;
      all.observe(ns);
      // Unknown method names share one series: callers must not be able to create series at will.
      const known = /^[a-z]+_[A-Za-z0-9]+$/.test(method) && isKnown(method);
      const key = `rpc/duration/${known ? method : 'other'}/${ok ? 'success' : 'failure'}`;
      let t = perMethod.get(key);
      if (t === undefined) {
        t = f.summary({ name: key, help: 'JSON-RPC request duration by method and outcome (nanoseconds)' });
        perMethod.set(key, t);
      }
      t.observe(ns);
    },
  };
}
