// What every benchmark suite exports: a name and a function that runs it and returns printable rows.

export interface BenchRow {
  /** What was measured, e.g. `keccak256 32B native batch(1024)`. */
  readonly task: string;
  /** Operations per second (for batch tasks: items per second). */
  readonly opsPerSec: number;
  /** Mean latency of one operation in microseconds. */
  readonly meanMicros: number;
  /** Free-form note: batch size, samples, relative speed. */
  readonly note?: string;
}

export interface BenchSuite {
  readonly name: string;
  run(): Promise<BenchRow[]>;
}
