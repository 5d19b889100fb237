// The main-thread side of profiling: CPU profiles of this thread and every pool thread merged into one (see
// agent.ts), the sampling heap profile, and the thread census behind the goroutine/threadcreate answers.
import { BroadcastChannel, threadId as ownThreadId } from 'node:worker_threads';
import { TernError } from '../errors.js';
import { PROFILER_CHANNEL, type ProfilerMessage } from './channel.js';
import {
  type EncodedStyleProfile,
  fromStringTableProfile,
  mergeThreadProfiles,
  type Profile,
  type ThreadProfile,
} from './profile.js';

export interface CpuProfilerOptions {
  /** Mean time between samples; V8's default of 1 ms (Go samples at 100 Hz, 10 ms). */
  intervalMicros?: number;
  /** Profile the worker-pool threads too. */
  workers?: boolean;
  /** How long to wait for a busy worker's profile after the stop; a task longer than this delays its answer. */
  workerTimeoutMs?: number;
}

export const cpuProfilerDefaults = { intervalMicros: 1000, workers: true, workerTimeoutMs: 5000 } as const;

type Pprof = typeof import('@datadog/pprof');
let pprofModule: Promise<Pprof> | undefined;
/** @datadog/pprof, loaded on first use (it is a native addon; programs that never profile never load it). */
export function loadPprof(): Promise<Pprof> {
  pprofModule ??= import('@datadog/pprof');
  return pprofModule;
}

let sessionSeq = 0;
let running: CpuSession | undefined;

export function workerLabel(threadId: number, pool: string): string {
  return `worker ${threadId} ${pool}`;
}

/** A CPU profile in progress over the main thread and (optionally) every pool thread. One at a time per process. */
export class CpuSession {
  readonly id = ++sessionSeq;
  readonly startedAt = Date.now();
  readonly #channel: BroadcastChannel | undefined;
  readonly #opts: Required<CpuProfilerOptions>;
  readonly #pending = new Map<number, string>();
  readonly #results: ThreadProfile[] = [];
  readonly #failures: string[] = [];
  #onSettled: (() => void) | undefined;
  #stopped = false;

  private constructor(opts: Required<CpuProfilerOptions>) {
    this.#opts = opts;
    if (opts.workers) {
      const channel = new BroadcastChannel(PROFILER_CHANNEL);
      channel.unref();
      channel.onmessage = (e: unknown) => this.#onMessage((e as MessageEvent).data as ProfilerMessage);
      this.#channel = channel;
    }
  }

  /** Starts profiling; throws PROFILE_BUSY when a CPU profile is already running (as Go refuses a second one). */
  static async start(opts: CpuProfilerOptions = {}): Promise<CpuSession> {
    if (running !== undefined) {
      throw new TernError('PROFILE_BUSY', 'a CPU profile is already being taken; try again when it finishes');
    }
    const { time } = await loadPprof();
    if (running !== undefined || time.isStarted()) {
      throw new TernError('PROFILE_BUSY', 'a CPU profile is already being taken; try again when it finishes');
    }
    const full = { ...cpuProfilerDefaults, ...opts };
    const session = new CpuSession(full);
    running = session;
    time.start({ intervalMicros: full.intervalMicros });
    session.#post({ t: 'start', id: session.id, intervalMicros: full.intervalMicros });
    return session;
  }

  #post(m: ProfilerMessage): void {
    this.#channel?.postMessage(m);
  }

  #onMessage(m: ProfilerMessage): void {
    if (m.t === 'hello' && !this.#stopped) {
      this.#post({ t: 'start', id: this.id, intervalMicros: this.#opts.intervalMicros });
    } else if (m.t === 'started' && m.id === this.id) {
      this.#pending.set(m.threadId, m.pool);
      // A thread that started after the stop went out still needs its stop.
      if (this.#stopped) this.#post({ t: 'stop', id: this.id });
    } else if ((m.t === 'profile' || m.t === 'failed') && m.id === this.id) {
      this.#pending.delete(m.threadId);
      if (m.t === 'profile') this.#results.push({ thread: workerLabel(m.threadId, m.pool), profile: m.profile });
      else this.#failures.push(`${workerLabel(m.threadId, m.pool)}: ${m.error}`);
      if (this.#pending.size === 0) this.#onSettled?.();
    }
  }

  /** Stops every thread's profiler and returns the merged profile (threads labelled; see mergeThreadProfiles). */
  async stop(): Promise<Profile> {
    if (this.#stopped) throw new TernError('PROFILE_STOPPED', 'this CPU profile was already stopped');
    this.#stopped = true;
    const { time } = await loadPprof();
    this.#post({ t: 'stop', id: this.id });
    let main: Profile;
    try {
      main = fromStringTableProfile(time.stop() as unknown as EncodedStyleProfile);
    } finally {
      if (running === this) running = undefined;
    }
    if (this.#channel !== undefined) {
      // Give the message loop a moment so 'started' replies already in flight are counted before waiting.
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (this.#pending.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#opts.workerTimeoutMs);
          this.#onSettled = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      this.#channel.close();
    }
    const parts: ThreadProfile[] = [
      { thread: `main ${ownThreadId}`, profile: main },
      ...this.#results.sort((a, b) => a.thread.localeCompare(b.thread)),
    ];
    const merged = mergeThreadProfiles(parts);
    merged.durationNanos = (Date.now() - this.startedAt) * 1e6;
    for (const [tid, pool] of this.#pending) {
      merged.comments.push(`${workerLabel(tid, pool)}: no profile within ${this.#opts.workerTimeoutMs} ms`);
    }
    for (const f of this.#failures) merged.comments.push(f);
    merged.comments.push(`threads: ${parts.map((p) => p.thread).join(', ')}`);
    return merged;
  }
}

/** A CPU profile over `durationMs`; the signal ends it early (the profile so far is returned). */
export async function profileCpu(
  durationMs: number,
  opts: CpuProfilerOptions = {},
  signal?: AbortSignal,
): Promise<Profile> {
  const session = await CpuSession.start(opts);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, durationMs);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
  return session.stop();
}

export interface ThreadCensus {
  threadId: number;
  /** `main` or the pool's worker module. */
  pool: string;
  /** process.getActiveResourcesInfo() of that thread: pending timers, sockets, requests… */
  resources: string[];
}

/** The threads of this process that answer within `timeoutMs`: the main thread first, then pool threads. */
export async function threadCensus(timeoutMs = 300): Promise<ThreadCensus[]> {
  const main: ThreadCensus = { threadId: ownThreadId, pool: 'main', resources: process.getActiveResourcesInfo() };
  const channel = new BroadcastChannel(PROFILER_CHANNEL);
  const id = ++sessionSeq;
  const found: ThreadCensus[] = [];
  channel.onmessage = (e: unknown) => {
    const m = (e as MessageEvent).data as ProfilerMessage;
    if (m.t === 'pong' && m.id === id) found.push({ threadId: m.threadId, pool: m.pool, resources: m.resources });
  };
  channel.postMessage({ t: 'ping', id } satisfies ProfilerMessage);
  await new Promise((resolve) => setTimeout(resolve, timeoutMs));
  channel.close();
  return [main, ...found.sort((a, b) => a.threadId - b.threadId)];
}

let heapInterval: number | undefined;

/** Starts V8's sampling heap profiler on this thread (Go's MemProfileRate: one sample per `intervalBytes`). */
export async function startHeapSampling(intervalBytes: number, stackDepth = 64): Promise<void> {
  if (heapInterval !== undefined) return;
  const { heap } = await loadPprof();
  heap.start(intervalBytes, stackDepth);
  heapInterval = intervalBytes;
}

export function heapSamplingInterval(): number | undefined {
  return heapInterval;
}

/** The live sampled allocations of this thread; HEAP_PROFILE_OFF when sampling was never started. */
export async function heapProfile(): Promise<Profile> {
  if (heapInterval === undefined) {
    throw new TernError('HEAP_PROFILE_OFF', 'heap sampling is off (memory profile rate 0)');
  }
  const { heap } = await loadPprof();
  return fromStringTableProfile(heap.profile() as unknown as EncodedStyleProfile);
}

export async function stopHeapSampling(): Promise<void> {
  if (heapInterval === undefined) return;
  const { heap } = await loadPprof();
  heap.stop();
  heapInterval = undefined;
}
