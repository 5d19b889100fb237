// Go's other named profiles, answered with the nearest thing Node has. Each is a valid pprof profile (never a
// broken file for `go tool pprof`) or, with ?debug=1, text; what the numbers mean is said in the profile's
// comments and in the index page.
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { ThreadCensus } from './collector.js';
import { emptyProfile, internStack, type Profile } from './profile.js';

export const GO_PROFILE_NOTES = {
  goroutine:
    'Node has no goroutines. Nearest: one sample per thread (main and every worker-pool thread) and one per pending ' +
    'async resource (timers, sockets, file handles) in that thread, which is what keeps work alive.',
  threadcreate: 'One sample per JavaScript thread: the main thread and the worker-pool threads alive now.',
  block:
    'Node has no blocking channel or lock operations; the main thread blocks only by keeping the event loop busy. ' +
    'Nearest: event-loop delay, measured while block profiling is on (tern-exec --pprof.blockprofilerate > 0; ' +
    'tern-node: always).',
  mutex:
    'Node has no mutexes: each isolate runs JavaScript on one thread and threads share no locks (only messages ' +
    'and Atomics), so there is no mutex contention to profile. The profile is empty by design; see block ' +
    '(event-loop delay) and profile (CPU, every thread) instead.',
  allocs:
    "V8's sampling heap profiler, main thread: the sampled objects still alive (Node 20 cannot report freed " +
    'samples, so allocs and heap hold the same data).',
} as const;

/** goroutine: threads and their pending async resources. */
export function goroutineProfile(census: readonly ThreadCensus[]): Profile {
  const p = emptyProfile([{ type: 'goroutine', unit: 'count' }], { type: 'goroutine', unit: 'count' });
  p.comments.push(GO_PROFILE_NOTES.goroutine);
  for (const t of census) {
    const thread = threadName(t);
    p.samples.push({ locations: internStack(p, [thread]), values: [1], labels: [{ key: 'thread', str: thread }] });
    const counts = new Map<string, number>();
    for (const r of t.resources) counts.set(r, (counts.get(r) ?? 0) + 1);
    for (const [resource, n] of counts) {
      p.samples.push({
        locations: internStack(p, [`pending ${resource}`, thread]),
        values: [n],
        labels: [{ key: 'thread', str: thread }],
      });
    }
  }
  return p;
}

/** threadcreate: one sample per live thread. */
export function threadcreateProfile(census: readonly ThreadCensus[]): Profile {
  const p = emptyProfile([{ type: 'threadcreate', unit: 'count' }], { type: 'threadcreate', unit: 'count' });
  p.comments.push(GO_PROFILE_NOTES.threadcreate);
  for (const t of census) {
    const thread = threadName(t);
    p.samples.push({ locations: internStack(p, [thread]), values: [1], labels: [{ key: 'thread', str: thread }] });
  }
  return p;
}

export function threadName(t: ThreadCensus): string {
  return t.pool === 'main' ? `[thread main ${t.threadId}]` : `[thread worker ${t.threadId} ${t.pool}]`;
}

/** Event-loop delay of the main thread, Go's block profile's nearest Node quantity. */
export class EventLoopBlockMonitor {
  readonly #histogram: IntervalHistogram;
  readonly resolutionMs: number;
  readonly startedAt = Date.now();

  constructor(resolutionMs = 10) {
    this.resolutionMs = Math.max(1, Math.round(resolutionMs));
    this.#histogram = monitorEventLoopDelay({ resolution: this.resolutionMs });
    this.#histogram.enable();
  }

  /** block: contentions = delay samples over the resolution, delay = their total (ns). */
  profile(): Profile {
    const p = emptyProfile(
      [
        { type: 'contentions', unit: 'count' },
        { type: 'delay', unit: 'nanoseconds' },
      ],
      { type: 'contentions', unit: 'count' },
    );
    p.comments.push(GO_PROFILE_NOTES.block);
    const h = this.#histogram;
    // The histogram holds the delay of each resolution-sized tick past its due time.
    const count = h.count;
    if (count > 0) {
      p.samples.push({
        locations: internStack(p, ['event loop delay', '[thread main]']),
        values: [count, Math.round(h.mean * count)],
        labels: [],
      });
    }
    p.durationNanos = (Date.now() - this.startedAt) * 1e6;
    return p;
  }

  text(): string {
    const h = this.#histogram;
    const ms = (ns: number): string => (Number.isFinite(ns) ? (ns / 1e6).toFixed(3) : '0');
    return [
      `event-loop delay of the main thread since ${new Date(this.startedAt).toISOString()} (resolution ${this.resolutionMs} ms)`,
      `samples: ${h.count}`,
      `mean ms: ${ms(h.mean)}  max ms: ${ms(h.max)}  p50 ms: ${ms(h.percentile(50))}  p99 ms: ${ms(h.percentile(99))}`,
      '',
      GO_PROFILE_NOTES.block,
      '',
    ].join('\n');
  }

  stop(): void {
    this.#histogram.disable();
  }
}

/** mutex: an empty profile of Go's mutex sample types, with the reason in its comments. */
export function mutexProfile(): Profile {
  const p = emptyProfile(
    [
      { type: 'contentions', unit: 'count' },
      { type: 'delay', unit: 'nanoseconds' },
    ],
    { type: 'contentions', unit: 'count' },
  );
  p.comments.push(GO_PROFILE_NOTES.mutex);
  return p;
}

/** The debug=1 text of a census (goroutine, threadcreate). */
export function censusText(kind: 'goroutine' | 'threadcreate', census: readonly ThreadCensus[]): string {
  const lines = [`${kind} profile: total ${census.length} threads`, '', GO_PROFILE_NOTES[kind], ''];
  for (const t of census) {
    lines.push(threadName(t));
    if (kind === 'goroutine') {
      if (t.resources.length === 0) lines.push('    (no pending async resources)');
      for (const r of t.resources) lines.push(`    ${r}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
