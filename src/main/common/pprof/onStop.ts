// A profile of one type taken over the program's whole run and written when it stops: tern-node's
// --pprof.path/--pprof.type, tern-exec's --pprof.cpuprofile. CPU profiles cover the worker pools too.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logger/index.js';
import { CpuSession, heapProfile, startHeapSampling, threadCensus } from './collector.js';
import { EventLoopBlockMonitor, goroutineProfile, mutexProfile, threadcreateProfile } from './goProfiles.js';
import { encodeProfileGzip, type Profile } from './profile.js';

export const PROFILE_TYPES = ['cpu', 'heap', 'goroutine', 'threadcreate', 'block', 'mutex', 'allocs'] as const;
export type ProfileType = (typeof PROFILE_TYPES)[number];

export interface ProfileWriterOptions {
  type: ProfileType;
  /** A file, or a directory: then `{dir}/{type}.prof` (op-node's rule). */
  path: string;
  /** Heap sampling interval for heap/allocs; default 512 KiB. */
  memProfileRate?: number;
}

export function profileFilePath(path: string, type: ProfileType): string {
  return existsSync(path) && statSync(path).isDirectory() ? join(path, `${type}.prof`) : path;
}

export class ProfileWriter {
  readonly #opts: ProfileWriterOptions;
  readonly #logger: Logger;
  #cpu: CpuSession | undefined;
  #block: EventLoopBlockMonitor | undefined;

  constructor(opts: ProfileWriterOptions, deps: { logger: Logger }) {
    this.#opts = opts;
    this.#logger = deps.logger;
  }

  get file(): string {
    return profileFilePath(this.#opts.path, this.#opts.type);
  }

  async start(): Promise<void> {
    const { type } = this.#opts;
    // Short: this runs inside the shutdown deadline.
    if (type === 'cpu') this.#cpu = await CpuSession.start({ workerTimeoutMs: 1500 });
    else if (type === 'heap' || type === 'allocs') await startHeapSampling(this.#opts.memProfileRate ?? 512 * 1024);
    else if (type === 'block') this.#block = new EventLoopBlockMonitor();
    this.#logger.info('Profiling until exit', { type, file: this.file });
  }

  /** Takes the profile and writes it; returns the file. */
  async write(): Promise<string> {
    let profile: Profile;
    switch (this.#opts.type) {
      case 'cpu':
        profile = await (this.#cpu as CpuSession).stop();
        break;
      case 'heap':
      case 'allocs':
        profile = await heapProfile();
        break;
      case 'block':
        profile = (this.#block as EventLoopBlockMonitor).profile();
        this.#block?.stop();
        break;
      case 'mutex':
        profile = mutexProfile();
        break;
      case 'goroutine':
        profile = goroutineProfile(await threadCensus());
        break;
      case 'threadcreate':
        profile = threadcreateProfile(await threadCensus());
        break;
    }
    const file = this.file;
    writeFileSync(file, encodeProfileGzip(profile));
    this.#logger.info('Wrote profile', { type: this.#opts.type, file });
    return file;
  }
}
