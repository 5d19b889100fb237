// Latency samples summarised as the benchmarks print them: p50, p99 and max in milliseconds.

export interface LatencySummary {
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** The nearest-rank percentile of ascending samples. */
function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export function summariseLatency(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    meanMs: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    p50Ms: pct(sorted, 50),
    p99Ms: pct(sorted, 99),
    maxMs: sorted.at(-1) ?? 0,
  };
}

export function latencyNote(s: LatencySummary): string {
  return `p50 ${s.p50Ms.toFixed(1)} ms, p99 ${s.p99Ms.toFixed(1)} ms, max ${s.maxMs.toFixed(1)} ms, ${s.count} probes`;
}
