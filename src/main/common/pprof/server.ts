// The profiling HTTP server at Go's paths (net/http/pprof): /debug/pprof/ index, profile?seconds=N (CPU, every
// thread), heap, allocs, and goroutine/threadcreate/block/mutex answered with their nearest Node equivalents.
// Binary answers are gzip-compressed pprof protobuf, as `go tool pprof http://host:port/debug/pprof/profile` expects.

import type { ServerResponse } from 'node:http';
import { getHeapStatistics } from 'node:v8';
import { TernError } from '../errors.js';
import type { Logger } from '../logger/index.js';
import { type ListenerAddress, ObservabilityListener, sendText } from '../metrics/listener.js';
import {
  type CpuProfilerOptions,
  heapProfile,
  heapSamplingInterval,
  profileCpu,
  startHeapSampling,
  stopHeapSampling,
  threadCensus,
} from './collector.js';
import {
  censusText,
  EventLoopBlockMonitor,
  GO_PROFILE_NOTES,
  goroutineProfile,
  mutexProfile,
  threadcreateProfile,
} from './goProfiles.js';
import { encodeProfileGzip, type Profile } from './profile.js';

export interface PprofServerOptions {
  host: string;
  port: number;
  cpu?: CpuProfilerOptions;
  /** Bytes between heap samples (Go's MemProfileRate, default 512 KiB); 0 turns heap profiles off. */
  memProfileRate?: number;
  /** Event-loop delay resolution in ms for the block profile; 0 turns it off. Default 10. */
  blockResolutionMs?: number;
  /** Longest CPU profile served, seconds. */
  maxSeconds?: number;
}

export const pprofServerDefaults: Required<
  Pick<PprofServerOptions, 'memProfileRate' | 'blockResolutionMs' | 'maxSeconds'>
> = {
  memProfileRate: 512 * 1024,
  blockResolutionMs: 10,
  maxSeconds: 3600,
};

const PROFILES = ['allocs', 'block', 'goroutine', 'heap', 'mutex', 'profile', 'threadcreate', 'trace'] as const;

export class PprofServer {
  readonly #listener: ObservabilityListener;
  readonly #opts: PprofServerOptions & typeof pprofServerDefaults;
  readonly #logger: Logger;
  #block: EventLoopBlockMonitor | undefined;
  #startedHeap = false;

  constructor(opts: PprofServerOptions, deps: { logger: Logger }) {
    this.#opts = { ...pprofServerDefaults, ...withoutUndefined(opts), host: opts.host, port: opts.port };
    this.#logger = deps.logger;
    this.#listener = new ObservabilityListener(
      { host: opts.host, port: opts.port, name: 'pprof' },
      (_req, res, url) => {
        // A client that goes away ends its CPU profile early.
        const gone = new AbortController();
        res.on('close', () => gone.abort());
        return this.#route(res, url, gone.signal);
      },
    );
  }

  async start(): Promise<ListenerAddress> {
    if (this.#opts.memProfileRate > 0 && heapSamplingInterval() === undefined) {
      await startHeapSampling(this.#opts.memProfileRate);
      this.#startedHeap = true;
    }
    if (this.#opts.blockResolutionMs > 0) this.#block = new EventLoopBlockMonitor(this.#opts.blockResolutionMs);
    const address = await this.#listener.start();
    this.#logger.info('Starting pprof server', { addr: `${address.url}/debug/pprof/` });
    return address;
  }

  async stop(): Promise<void> {
    await this.#listener.stop();
    this.#block?.stop();
    if (this.#startedHeap) await stopHeapSampling();
  }

  async #route(res: ServerResponse, url: URL, signal: AbortSignal | undefined): Promise<void> {
    const path = url.pathname;
    if (path === '/debug/pprof' || path === '/debug/pprof/') return sendIndex(res);
    if (!path.startsWith('/debug/pprof/')) return sendText(res, 404, '404 page not found\n');
    const name = path.slice('/debug/pprof/'.length);
    const debug = Number(url.searchParams.get('debug') ?? '0') > 0;
    switch (name) {
      case 'cmdline':
        return sendText(res, 200, process.argv.join('\x00'));
      case 'profile':
        return this.#cpu(res, url, signal);
      case 'heap':
      case 'allocs':
        return this.#heap(res, url, debug);
      case 'goroutine':
      case 'threadcreate': {
        const census = await threadCensus();
        if (debug) return sendText(res, 200, censusText(name, census));
        return sendProfile(res, name, name === 'goroutine' ? goroutineProfile(census) : threadcreateProfile(census));
      }
      case 'block':
        if (this.#block === undefined) {
          if (debug) return sendText(res, 200, `block profiling is off\n\n${GO_PROFILE_NOTES.block}\n`);
          return sendProfile(res, name, new EventLoopBlockMonitorOff().profile());
        }
        return debug ? sendText(res, 200, this.#block.text()) : sendProfile(res, name, this.#block.profile());
      case 'mutex':
        return debug ? sendText(res, 200, `${GO_PROFILE_NOTES.mutex}\n`) : sendProfile(res, name, mutexProfile());
      case 'trace':
        return sendText(
          res,
          501,
          'Go execution traces have no Node equivalent that go tool trace reads. Take a CPU profile instead ' +
            '(/debug/pprof/profile?seconds=N covers every thread), or run node with --cpu-prof / --trace-events.\n',
        );
      case 'symbol':
        // go tool pprof asks for symbols only for addresses; JS profiles carry names, so there is nothing to map.
        return sendText(res, 200, 'num_symbols: 0\n');
      default:
        return sendText(res, 404, `Unknown profile: ${name}\n`);
    }
  }

  async #cpu(res: ServerResponse, url: URL, signal: AbortSignal | undefined): Promise<void> {
    const raw = url.searchParams.get('seconds');
    const seconds = raw === null || raw === '' ? 30 : Number(raw);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      return sendText(res, 400, `Bad Request: seconds must be a positive number, got "${raw}"\n`);
    }
    if (seconds > this.#opts.maxSeconds) {
      return sendText(res, 400, `Bad Request: profile duration exceeds the maximum of ${this.#opts.maxSeconds} s\n`);
    }
    let profile: Profile;
    try {
      profile = await profileCpu(seconds * 1000, this.#opts.cpu, signal);
    } catch (err) {
      if (err instanceof TernError && err.code === 'PROFILE_BUSY') {
        return sendText(res, 500, `Could not enable CPU profiling: ${err.message}\n`);
      }
      throw err;
    }
    if (res.destroyed) return;
    sendProfile(res, 'profile', profile);
  }

  async #heap(res: ServerResponse, url: URL, debug: boolean): Promise<void> {
    if (url.searchParams.get('gc') === '1') (globalThis as { gc?: () => void }).gc?.();
    if (debug) {
      const mem = process.memoryUsage();
      const heap = getHeapStatistics();
      const lines = [
        `heap profile (main thread), sampling every ${heapSamplingInterval() ?? 0} bytes`,
        ...Object.entries(mem).map(([k, v]) => `# ${k} = ${v}`),
        ...Object.entries(heap).map(([k, v]) => `# v8.${k} = ${v}`),
        '',
      ];
      return sendText(res, 200, lines.join('\n'));
    }
    if (heapSamplingInterval() === undefined) {
      return sendText(res, 501, 'heap profiling is off: the memory profile rate is 0\n');
    }
    const profile = await heapProfile();
    if (url.pathname.endsWith('allocs')) profile.comments.push(GO_PROFILE_NOTES.allocs);
    sendProfile(res, url.pathname.endsWith('allocs') ? 'allocs' : 'heap', profile);
  }
}

/** A block profile with no samples, for when block profiling is off (Go's answer at rate 0). */
class EventLoopBlockMonitorOff {
  profile(): Profile {
    const p = mutexProfile();
    p.comments[0] = `block profiling is off. ${GO_PROFILE_NOTES.block}`;
    return p;
  }
}

function sendProfile(res: ServerResponse, name: string, profile: Profile): void {
  const body = encodeProfileGzip(profile);
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${name}"`,
    'x-content-type-options': 'nosniff',
    'content-length': body.length,
  });
  res.end(body);
}

function sendIndex(res: ServerResponse): void {
  const rows = PROFILES.map(
    (p) =>
      `<tr><td><a href="/debug/pprof/${p}${p === 'profile' ? '' : '?debug=1'}">${p}</a></td><td>${escapeHtml(describe(p))}</td></tr>`,
  ).join('\n');
  const html = `<html><head><title>/debug/pprof/</title></head><body>
<p>/debug/pprof/ — profiles of this Node.js process in Go's pprof format. Use
<code>go tool pprof http://HOST:PORT/debug/pprof/profile?seconds=30</code>.</p>
<table><tr><th>Profile</th><th>What it is here</th></tr>
${rows}
</table>
<p><a href="/debug/pprof/cmdline">cmdline</a>: the command line.</p>
</body></html>
`;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(html);
}

function describe(p: (typeof PROFILES)[number]): string {
  switch (p) {
    case 'profile':
      return 'CPU (wall-clock samples) of the main thread and every worker-pool thread, merged; each stack is rooted at a [thread …] frame and labelled thread=…. ?seconds=N, default 30.';
    case 'heap':
      return "V8's sampling heap profiler on the main thread: live sampled allocations.";
    case 'trace':
      return 'Not available: Go execution traces have no Node equivalent.';
    default:
      return GO_PROFILE_NOTES[p];
  }
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
